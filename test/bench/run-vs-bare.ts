/**
 * `loopguard run --json` from the CLI bundle against a bare consumer script (bare-consumer.ts,
 * bundled the same way) on the same reply from the same local server: wall time and peak RSS of
 * the whole process, paired (the order alternates within each pair), under Node and under Bun.
 *
 *   bun run test/bench/run-vs-bare.ts [--quick]
 */
import { startScriptedServer, textStream } from "@loopguard/ai-sdk/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { prose } from "./guarded-step.js"
import { buildCliBundle, bundleForNode, cliBundle, mb, median, nodeVersion, quick, timedChild, verdict, type Timed } from "./lib/measure.js"

export const TIME_TARGET = 1.15
export const RSS_TARGET = 1.3

export interface RunFigure {
  readonly runtime: string
  readonly runMs: number
  readonly bareMs: number
  readonly timeRatio: number
  readonly runRss: number
  readonly bareRss: number
  readonly rssRatio: number
  /** The same, against a bare script that offers `run`'s three tools (the request `run` sends). */
  readonly toolsBareMs: number
  readonly toolsTimeRatio: number
  /** Against a bare script on the SDK's single-call primitive with those tools (what `run` calls): loopguard's own share. */
  readonly callBareMs: number
  readonly callTimeRatio: number
  readonly callRssRatio: number
}

export const main = async (isQuick = quick()): Promise<ReadonlyArray<RunFigure>> => {
  const words = isQuick ? 30_000 : 120_000
  const chunks = isQuick ? 10_000 : 40_000
  const text = prose(words)
  const reply = textStream(text, { chunkSize: Math.ceil(text.length / chunks), usage: { prompt_tokens: 1, completion_tokens: words } })
  buildCliBundle()
  const server = await startScriptedServer(() => reply)
  const work = mkdtempSync(join(tmpdir(), "loopguard-bench-run-"))
  // Ten pairs: with six, the median ratio under Bun moved by ±4 % between back-to-back runs.
  const pairs = isQuick ? 4 : 10
  try {
    const bare = await bundleForNode(join(import.meta.dir, "bare-consumer.ts"), work, "bare.mjs")
    const figures: Array<RunFigure> = []
    for (const [runtime, cmd] of [
      [`node ${nodeVersion()}`, "node"],
      [`bun ${Bun.version}`, process.execPath]
    ] as const) {
      const run = () => timedChild(cmd, [cliBundle, "run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--json", "--cwd", work])
      const base = () => timedChild(cmd, [bare, server.baseURL, server.modelId, "go"])
      const toolsBase = () => timedChild(cmd, [bare, server.baseURL, server.modelId, "go", "--tools"])
      const callBase = () => timedChild(cmd, [bare, server.baseURL, server.modelId, "go", "--single-call"])
      await run(), await base(), await toolsBase(), await callBase() // warm the file cache
      const runs: Array<Timed> = []
      const bases: Array<Timed> = []
      const toolsBases: Array<Timed> = []
      const callBases: Array<Timed> = []
      for (let i = 0; i < pairs; i++) {
        if (i % 2 === 0) runs.push(await run()), bases.push(await base()), toolsBases.push(await toolsBase()), callBases.push(await callBase())
        else callBases.push(await callBase()), toolsBases.push(await toolsBase()), bases.push(await base()), runs.push(await run())
      }
      if (!runs.every((r) => r.stdout.includes('"reason":"final"'))) throw new Error("a loopguard run did not end final")
      figures.push({
        runtime,
        runMs: median(runs.map((r) => r.ms)),
        bareMs: median(bases.map((r) => r.ms)),
        timeRatio: median(runs.map((r, i) => r.ms / bases[i]!.ms)),
        runRss: median(runs.map((r) => r.peakRss)),
        bareRss: median(bases.map((r) => r.peakRss)),
        rssRatio: median(runs.map((r, i) => r.peakRss / bases[i]!.peakRss)),
        toolsBareMs: median(toolsBases.map((r) => r.ms)),
        toolsTimeRatio: median(runs.map((r, i) => r.ms / toolsBases[i]!.ms)),
        callBareMs: median(callBases.map((r) => r.ms)),
        callTimeRatio: median(runs.map((r, i) => r.ms / callBases[i]!.ms)),
        callRssRatio: median(runs.map((r, i) => r.peakRss / callBases[i]!.peakRss))
      })
    }
    console.log(`loopguard run --json (bundle) vs a bare streamText script (bundle), ${words.toLocaleString()} words in ${chunks.toLocaleString()} chunks, ${pairs} paired runs`)
    for (const f of figures) {
      console.log(`  ${f.runtime.padEnd(14)} time: run ${f.runMs.toFixed(0)} ms, bare ${f.bareMs.toFixed(0)} ms, ratio ${f.timeRatio.toFixed(2)}x (target <= ${TIME_TARGET}x: ${verdict(f.timeRatio, TIME_TARGET)})`)
      console.log(`  ${"".padEnd(14)} peak RSS: run ${mb(f.runRss)}, bare ${mb(f.bareRss)}, ratio ${f.rssRatio.toFixed(2)}x (target <= ${RSS_TARGET}x: ${verdict(f.rssRatio, RSS_TARGET)})`)
      console.log(`  ${"".padEnd(14)} for reference, a bare script offering run's three tools: ${f.toolsBareMs.toFixed(0)} ms, ratio ${f.toolsTimeRatio.toFixed(2)}x (the verdict above is against the script without tools)`)
      console.log(`  ${"".padEnd(14)} loopguard's own share: against a bare script on the single call run makes, with the same tools (${f.callBareMs.toFixed(0)} ms), time ${f.callTimeRatio.toFixed(2)}x, peak RSS ${f.callRssRatio.toFixed(2)}x`)
    }
    return figures
  } finally {
    await server.close()
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) await main()
