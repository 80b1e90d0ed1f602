/**
 * The light AI SDK entry's cost to an app: a whole process that imports `@loopguard/ai-sdk/agent`
 * against one that imports `ai` alone, paired runs (order alternating), median of the per-pair
 * ratios; and how many modules each loads, by package (none may come from `effect`). On Node the
 * entry is imported the way an installed app imports it (the packages' built `dist/`, the agent
 * entry bundled as `bun run build` ships it, through the workspace's node_modules links). Bun
 * inside the workspace would read the TypeScript sources (the `bun` export condition, which the
 * tarballs drop), so on Bun the shipped file is imported by its path, as an installed app gets it.
 *
 *   bun run test/bench/agent-entry.ts [pairs]
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { median, root, verdict } from "./lib/measure.js"

const TARGET_RATIO = 1.3
const ENTRY = "@loopguard/ai-sdk/agent"

/** Builds core's and ai-sdk's dist/ (what Node imports) from the current sources, the agent entry bundled as it ships. */
const buildLibraries = (): void => {
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  const r = spawnSync(process.execPath, [tsc, "-b", "packages/core/tsconfig.build.json", "packages/ai-sdk/tsconfig.build.json"], { cwd: root, encoding: "utf8" })
  if (r.status !== 0 || !existsSync(join(root, "packages/ai-sdk/dist/agent/index.js"))) throw new Error(`building dist/ failed: ${r.stdout}${r.stderr}`)
  const bundled = spawnSync(process.execPath, [join(root, "scripts/build.ts"), "agent-entry"], { cwd: root, encoding: "utf8" })
  if (bundled.status !== 0) throw new Error(`bundling the agent entry failed: ${bundled.stderr}`)
}

/** Wall time of one process that imports `specifier` and exits, in ms. */
const timedImport = (cmd: string, specifier: string): number => {
  const args = cmd === "node" ? ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)})`] : ["-e", `await import(${JSON.stringify(specifier)})`]
  const start = performance.now()
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8" })
  const ms = performance.now() - start
  if (r.status !== 0) throw new Error(`${cmd} importing ${specifier} exited ${r.status}: ${r.stderr}`)
  return ms
}

/** Node: every module URL the loader resolved, counted by package (a resolve hook in the same process). */
const NODE_COUNTER = `import * as nodeModule from "node:module"
// Synchronous resolve hooks arrived in Node 22.15; an older Node says it cannot count.
if (typeof nodeModule.registerHooks !== "function") { console.log("null"); process.exit(0) }
const seen = new Set()
nodeModule.registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.add(r.url); return r } })
await import(process.argv[2])
console.log(JSON.stringify([...seen]))`

/** Bun: every module in the process's module cache after the import. */
const BUN_COUNTER = "await import(process.argv[2]); console.log(JSON.stringify(Object.keys(require.cache)))"

const packageOf = (url: string): string => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url) ?? /packages\/([^/]+)\//.exec(url)
  return m ? m[1]!.replace(/^(core|ai-sdk|effect)$/, "@loopguard/$1") : url.startsWith("node:") ? "node:" : "other"
}

/** Modules by package; null when the runtime cannot list them. */
const modulesLoaded = (cmd: string, counter: string, specifier: string): Map<string, number> | null => {
  const r = spawnSync(cmd, [counter, specifier], { cwd: root, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`counting modules of ${specifier} failed: ${r.stderr}`)
  const urls = JSON.parse(r.stdout.trim().split("\n").pop()!) as Array<string> | null
  if (urls === null) return null
  const byPackage = new Map<string, number>()
  for (const url of urls) byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + 1)
  return byPackage
}

export interface AgentEntryResult {
  readonly runtime: string
  readonly entryMs: number
  readonly aiMs: number
  readonly ratio: number
  /** Null when the runtime cannot list its modules (Node before 22.15). */
  readonly modules: number | null
  readonly effectModules: number | null
  readonly targetMet: boolean
}

const measure = (runtime: string, cmd: string, counter: string, pairs: number, ENTRY: string): AgentEntryResult => {
  timedImport(cmd, ENTRY), timedImport(cmd, "ai") // warm the file cache once, outside the figures
  const entry: Array<number> = []
  const ai: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < pairs; i++) {
    const [e, a] = i % 2 === 0 ? [timedImport(cmd, ENTRY), timedImport(cmd, "ai")] : (([a2, e2]) => [e2, a2])([timedImport(cmd, "ai"), timedImport(cmd, ENTRY)])
    entry.push(e!)
    ai.push(a!)
    ratios.push(e! / a!)
  }
  const loaded = modulesLoaded(cmd, counter, ENTRY)
  const aiLoaded = modulesLoaded(cmd, counter, "ai")
  const total = (m: Map<string, number> | null) => (m === null ? null : [...m.values()].reduce((a, b) => a + b, 0))
  const effectModules = loaded === null ? null : (loaded.get("effect") ?? 0) + (loaded.get("@loopguard/effect") ?? 0)
  const result: AgentEntryResult = { runtime, entryMs: median(entry), aiMs: median(ai), ratio: median(ratios), modules: total(loaded), effectModules, targetMet: median(ratios) <= TARGET_RATIO && effectModules !== null && effectModules === 0 }
  console.log(`Importing ${ENTRY.replace(root + "/", "")} vs ai alone, on ${runtime} (${pairs} paired whole-process runs, medians)`)
  const row = (label: string, value: string) => console.log(`  ${label.padEnd(40)}${value}`)
  row("import the agent entry:", `${result.entryMs.toFixed(0)} ms${result.modules === null ? "" : `, ${result.modules} modules (ai alone: ${total(aiLoaded)})`}`)
  row("import ai:", `${result.aiMs.toFixed(0)} ms`)
  row("loopguard's own modules:", loaded === null ? "not counted (this Node has no module.registerHooks; Node >= 22.15 does)" : [...loaded].filter(([p]) => p.startsWith("@loopguard/") || p === "@noble/hashes" || p === "jsonrepair").map(([p, n]) => `${p} ${n}`).join(", "))
  row("modules from effect:", effectModules === null ? "not counted" : `${effectModules} (target 0: ${effectModules === 0 ? "met" : "NOT met"})`)
  row("ratio (median of pairs):", `${result.ratio.toFixed(2)}x  (target <= ${TARGET_RATIO}x: ${verdict(result.ratio, TARGET_RATIO)})`)
  return result
}

export const main = async (pairs = 15): Promise<ReadonlyArray<AgentEntryResult>> => {
  buildLibraries()
  // Inside the workspace, so the counters resolve packages as the app does (bare specifiers resolve from the importing file).
  mkdirSync(join(root, "node_modules/.cache"), { recursive: true })
  const work = mkdtempSync(join(root, "node_modules/.cache/loopguard-agent-entry-"))
  try {
    const nodeCounter = join(work, "count.mjs")
    const bunCounter = join(work, "count-bun.mjs")
    writeFileSync(nodeCounter, NODE_COUNTER)
    writeFileSync(bunCounter, BUN_COUNTER)
    const node = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim()
    const shipped = join(root, "packages/ai-sdk/dist/agent/index.js")
    return [measure(`node ${node}`, "node", nodeCounter, pairs, ENTRY), measure(`bun ${Bun.version}`, process.execPath, bunCounter, pairs, shipped)]
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) await main(Number(process.argv[2] ?? 15))
