/**
 * The light entry loads no Effect and no provider package: checked twice, statically (every
 * module a bundler reaches from it) and at run time (every module a fresh Bun process holds after
 * importing it). The main entry, which does load Effect, is the control: the same checks on it
 * find Effect, so they can fail.
 */
import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"

const PACKAGE = join(dirname(import.meta.path), "../..")
const HEAVY = /node_modules\/(effect|@ai-sdk\/openai|@ai-sdk\/openai-compatible)\/|packages\/effect\//

/** Every source file a bundle of `entry` would hold (static imports and dynamic ones alike). */
const bundledInputs = async (entry: string): Promise<Array<string>> => {
  const result = await Bun.build({ entrypoints: [join(PACKAGE, entry)], target: "node", conditions: ["bun"], metafile: true } as Parameters<typeof Bun.build>[0])
  if (!result.success) throw new Error(result.logs.join("\n"))
  return Object.keys((result as unknown as { metafile: { inputs: Record<string, unknown> } }).metafile.inputs)
}

/** Every module a fresh Bun process has loaded after importing `specifier`. */
const loadedModules = (specifier: string): Array<string> => {
  const script = `await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)))`
  const r = spawnSync(process.execPath, ["-e", script], { cwd: PACKAGE, encoding: "utf8", timeout: 60_000 })
  if (r.status !== 0) throw new Error(`bun -e failed: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Array<string>
}

describe("@loopguard/ai-sdk/agent loads no Effect", () => {
  test(
    "statically: nothing from effect, @loopguard/effect or the provider packages is reachable from the entry",
    async () => {
      const light = await bundledInputs("src/agent/index.ts")
      expect(light.filter((p) => HEAVY.test(p))).toEqual([])
      expect(light.some((p) => p.includes("node_modules/ai/"))).toBe(true)
      const main = await bundledInputs("src/index.ts")
      expect(main.filter((p) => HEAVY.test(p)).length).toBeGreaterThan(0)
    },
    60_000
  )

  test(
    "at run time: a process that imports the entry holds no module of effect or of the providers",
    () => {
      const light = loadedModules("@loopguard/ai-sdk/agent")
      expect(light.filter((p) => HEAVY.test(p))).toEqual([])
      expect(light.some((p) => p.includes("/agent/index.ts"))).toBe(true)
      expect(loadedModules("@loopguard/ai-sdk").filter((p) => HEAVY.test(p)).length).toBeGreaterThan(100)
    },
    60_000
  )
})
