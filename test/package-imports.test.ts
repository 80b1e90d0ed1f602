/**
 * What Node will accept from the built packages: every bare import in a package's sources names a
 * dependency the package declares, through an entry point that dependency offers (its `exports`
 * map, or only its root when it has none: deep paths into a package without `exports`, such as
 * `jsonc-parser/lib/esm/main.js`, load as CommonJS under Node and fail).
 */
import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
const LIBRARIES = ["core", "effect", "ai-sdk", "proxy"] as const

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.includes("fixture") && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : []
  )

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

const bareSpecifiers = (text: string): Array<string> =>
  [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!).filter((s) => !s.startsWith(".") && !s.startsWith("node:"))

const split = (spec: string) => {
  const parts = spec.split("/")
  const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
  const sub = spec.slice(name.length)
  return { name, sub: sub === "" ? "." : `.${sub}` }
}

/** The dependency's package.json as the package would find it (walking up node_modules). */
const manifestOf = (fromDir: string, name: string): { exports?: unknown } | null => {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json")
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"))
    if (dir === dirname(dir)) return null
  }
}

const offers = (exportsField: unknown, sub: string): boolean => {
  if (exportsField === undefined) return sub === "."
  if (typeof exportsField === "string" || Array.isArray(exportsField)) return sub === "."
  const keys = Object.keys(exportsField as object)
  if (!keys.some((k) => k.startsWith("."))) return sub === "." // a conditions object for the root
  return keys.some((k) => k === sub || (k.includes("*") && sub.startsWith(k.slice(0, k.indexOf("*")))))
}

describe("bare imports in the packages' sources", () => {
  for (const pkg of LIBRARIES) {
    test(`@loopguard/${pkg}: declared dependencies, through entry points they offer`, () => {
      const dir = join(root, "packages", pkg)
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        readonly name: string
        readonly dependencies?: Record<string, string>
        readonly peerDependencies?: Record<string, string>
      }
      const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])
      const problems: Array<string> = []
      for (const file of sourceFiles(join(dir, "src"))) {
        for (const spec of bareSpecifiers(readFileSync(file, "utf8"))) {
          const { name, sub } = split(spec)
          const where = `${file.slice(root.length + 1)}: "${spec}"`
          if (name === manifest.name) problems.push(`${where} imports its own package`)
          else if (!declared.has(name)) problems.push(`${where}: ${name} is not in dependencies or peerDependencies`)
          else {
            const dep = manifestOf(dir, name)
            if (dep === null) problems.push(`${where}: ${name} is not installed`)
            else if (!offers(dep.exports, sub)) problems.push(`${where}: ${name} does not offer "${sub}" to Node`)
          }
        }
      }
      expect(problems).toEqual([])
    })
  }
})
