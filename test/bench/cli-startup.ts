/**
 * CLI start-up: `loopguard scan` on one line of text, from the bundle, against a bare program that
 * imports the same dependencies (packages/cli/bench/startup-baseline.mjs, bundled the same way as
 * the Node bundle), under Node and under Bun (where the bin runs the bytecode build). Runs are
 * paired (the order alternates within each pair) in this one process tree, so load on the machine
 * hits both sides alike; the figure is the median of the per-pair ratios.
 *
 *   bun run test/bench/cli-startup.ts [pairs]
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const TARGET_RATIO = 2
const root = resolve(import.meta.dir, "../..")
const bundle = join(root, "packages/cli/dist/loopguard.mjs")

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const buildBaseline = async (outdir: string): Promise<string> => {
  const result = await Bun.build({
    entrypoints: [join(root, "packages/cli/bench/startup-baseline.mjs")],
    outdir,
    naming: { entry: "baseline.mjs" },
    target: "node",
    format: "esm"
  })
  if (!result.success) throw new Error(result.logs.map(String).join("\n"))
  return join(outdir, "baseline.mjs")
}

/** Wall time of one process from spawn to exit, in ms; fails loudly if the process failed. */
const timed = (cmd: string, args: ReadonlyArray<string>, input: string): number => {
  const start = performance.now()
  const r = spawnSync(cmd, args, { input, encoding: "utf8" })
  const ms = performance.now() - start
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
  return ms
}

export interface StartupResult {
  /** The runtime, with its version. */
  readonly runtime: string
  readonly pairs: number
  readonly cliMs: number
  readonly baselineMs: number
  readonly ratio: number
  readonly targetMet: boolean
}

const measure = (runtime: string, cmd: string, baseline: string, pairs: number): StartupResult => {
  const cli = () => timed(cmd, [bundle, "scan"], "one tiny line of text\n")
  const bare = () => timed(cmd, [baseline], "")
  cli(), bare() // warm the file cache once, outside the figures
  const empty = () => timed(cmd, ["-e", "0"], "")
  const cliMs: Array<number> = []
  const baseMs: Array<number> = []
  const emptyMs: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < pairs; i++) {
    let c: number
    let b: number
    if (i % 2 === 0) {
      c = cli()
      b = bare()
    } else {
      b = bare()
      c = cli()
    }
    cliMs.push(c)
    baseMs.push(b)
    ratios.push(c / b)
    emptyMs.push(empty())
  }
  const result: StartupResult = { runtime, pairs, cliMs: median(cliMs), baselineMs: median(baseMs), ratio: median(ratios), targetMet: median(ratios) <= TARGET_RATIO }
  console.log(`CLI start-up on ${runtime} (${pairs} paired runs, medians)`)
  const row = (label: string, value: string) => console.log(`  ${label.padEnd(38)}${value}`)
  row("loopguard scan (bundle):", `${result.cliMs.toFixed(0)} ms`)
  row("bare program importing the same deps:", `${result.baselineMs.toFixed(0)} ms`)
  row("empty runtime (-e 0), for reference:", `${median(emptyMs).toFixed(0)} ms`)
  row("ratio (median of pairs):", `${result.ratio.toFixed(2)}x  (target <= ${TARGET_RATIO}x: ${result.targetMet ? "met" : "NOT met"})`)
  return result
}

export const main = async (pairs = 15): Promise<ReadonlyArray<StartupResult>> => {
  // Measure the current code: rebuild the bundle first.
  const build = spawnSync(process.execPath, [join(root, "scripts/build.ts"), "cli"], { cwd: root, encoding: "utf8" })
  if (build.status !== 0) throw new Error(`building the CLI bundle failed: ${build.stderr}`)
  const work = mkdtempSync(join(tmpdir(), "loopguard-startup-"))
  try {
    const baseline = await buildBaseline(work)
    const node = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim()
    return [measure(`node ${node}`, "node", baseline, pairs), measure(`bun ${Bun.version}`, process.execPath, baseline, pairs)]
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) await main(Number(process.argv[2] ?? 15))
