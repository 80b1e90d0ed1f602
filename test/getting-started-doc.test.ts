/**
 * docs/getting-started.md names only what the packages export: every name its TypeScript snippets
 * import from a `@loopguard/*` entry is exported there, every `Name.member` used on such a name
 * exists, and every `loopguard <command>` in its shell snippets is a command the CLI has.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
const doc = readFileSync(resolve(root, "docs/getting-started.md"), "utf8")
const blocks = (lang: string) => [...doc.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!)
const ts = blocks("ts").join("\n")

const imports = [...ts.matchAll(/import \{([^}]*)\} from "(@loopguard\/[^"]+)"/g)].flatMap((m) =>
  m[1]!
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "" && !n.startsWith("type "))
    .map((name) => ({ name, spec: m[2]! }))
)

describe("docs/getting-started.md", () => {
  test("its snippets import from every library surface they describe", () => {
    expect(new Set(imports.map((i) => i.spec))).toEqual(new Set(["@loopguard/ai-sdk", "@loopguard/effect", "@loopguard/ai-sdk/agent"]))
  })

  test("every imported name is exported by its entry, and every Name.member it uses exists", async () => {
    const missing: Array<string> = []
    for (const { name, spec } of imports) {
      const module = (await import(spec)) as Record<string, unknown>
      const value = module[name]
      if (value === undefined) {
        missing.push(`${spec}: ${name}`)
        continue
      }
      for (const m of ts.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, "g"))) {
        if ((value as Record<string, unknown>)[m[1]!] === undefined) missing.push(`${spec}: ${name}.${m[1]}`)
      }
    }
    expect(missing).toEqual([])
  })

  test("the agent helpers it calls exist on loopguardAgent()", async () => {
    const { loopguardAgent } = await import("@loopguard/ai-sdk/agent")
    const guard = loopguardAgent() as unknown as Record<string, unknown>
    const used = [...new Set([...ts.matchAll(/\bguard\.(\w+)/g)].map((m) => m[1]!))]
    expect(used.length).toBeGreaterThan(2)
    expect(used.filter((m) => typeof guard[m] !== "function")).toEqual([])
  })

  test("every loopguard command in its shell snippets exists", () => {
    const main = readFileSync(resolve(root, "packages/cli/src/main.ts"), "utf8")
    const commands = [...blocks("sh").join("\n").matchAll(/^\s*loopguard (\w+)/gm)].map((m) => m[1]!)
    expect(commands).toContain("audit")
    const known = (c: string) => new RegExp(`\\b${c}Command\\b`).test(main)
    expect([...new Set(commands)].filter((c) => !known(c))).toEqual([])
  })
})
