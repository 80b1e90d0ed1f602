/**
 * The full guarded step against bare `streamText` on the same HTTP stream, under Bun (from
 * source) and under Node (this machine's Node, from a bundle). The scripted server runs in this
 * process; each runtime's consumer pair runs in one child, so both sides of a pair share the
 * same server, the same machine load and the same runtime.
 *
 *   bun run test/bench/guarded-step.ts [--quick] [--repeat-off]
 *
 * `--repeat-off` turns the repetition guard off on the guarded side, which separates the guard's
 * share of the step's cost from the pipeline's.
 */
import { startScriptedServer, textStream } from "@loopguard/ai-sdk/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundleForNode, median, nodeVersion, quick, timedChild, verdict } from "./lib/measure.js"

export const TARGET = 1.1

/** Prose with no loop in it: `words` words from a 5 000-word vocabulary, fixed seed. */
export const prose = (words: number): string => {
  let seed = 12345
  const out: Array<string> = []
  for (let i = 0; i < words; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    out.push(`w${(seed % 5000).toString(36)}`)
  }
  return out.join(" ")
}

export interface PairedFigure {
  readonly runtime: string
  readonly bareMs: number
  readonly guardedMs: number
  /** Median of the per-pair wall-time ratios. */
  readonly ratio: number
  /** Median of the per-pair CPU-time ratios of the consumer process (steadier on a loaded machine). */
  readonly cpuRatio: number
  /** A bare consumer of the SDK's single-call primitive (what the guarded step calls), and the guarded step's wall ratio to it. */
  readonly callMs: number
  readonly callRatio: number
}

interface Sample {
  readonly wall: number
  readonly cpu: number
}

const summarize = (runtime: string, stdout: string): PairedFigure => {
  const { bareRuns, guardedRuns, callRuns } = JSON.parse(stdout.trim().split("\n").at(-1)!) as { bareRuns: Array<Sample>; guardedRuns: Array<Sample>; callRuns: Array<Sample> }
  return {
    runtime,
    bareMs: median(bareRuns.map((r) => r.wall)),
    guardedMs: median(guardedRuns.map((r) => r.wall)),
    ratio: median(guardedRuns.map((g, i) => g.wall / bareRuns[i]!.wall)),
    cpuRatio: median(guardedRuns.map((g, i) => g.cpu / bareRuns[i]!.cpu)),
    callMs: median(callRuns.map((r) => r.wall)),
    callRatio: median(guardedRuns.map((g, i) => g.wall / callRuns[i]!.wall))
  }
}

export const main = async (isQuick = quick(), repeatOff = process.argv.includes("--repeat-off")): Promise<ReadonlyArray<PairedFigure>> => {
  // The case: a 120k-token reply in 40k chunks (quick: a quarter of it).
  const words = isQuick ? 30_000 : 120_000
  const chunks = isQuick ? 10_000 : 40_000
  const text = prose(words)
  const reply = textStream(text, { chunkSize: Math.ceil(text.length / chunks), usage: { prompt_tokens: 1, completion_tokens: words } })
  const server = await startScriptedServer(() => reply)
  const work = mkdtempSync(join(tmpdir(), "loopguard-bench-step-"))
  const rounds = isQuick ? 5 : 7
  try {
    const worker = join(import.meta.dir, "guarded-step-worker.ts")
    const nodeWorker = await bundleForNode(worker, work, "worker.mjs")
    const figures: Array<PairedFigure> = []
    for (const [runtime, cmd, entry] of [
      [`bun ${Bun.version}`, process.execPath, worker],
      [`node ${nodeVersion()}`, "node", nodeWorker]
    ] as const) {
      // Asynchronous: the server answering the child lives in this process's event loop.
      const r = await timedChild(cmd, [entry, server.baseURL, server.modelId, String(rounds), ...(repeatOff ? ["repeat-off"] : [])])
      figures.push(summarize(runtime, r.stdout))
    }
    console.log(
      `Guarded step${repeatOff ? " (repeat.enabled = false)" : ""} vs bare streamText, one reply of ${words.toLocaleString()} words in ${chunks.toLocaleString()} chunks over local HTTP, ${rounds} paired rounds`
    )
    for (const f of figures) {
      console.log(`  ${f.runtime.padEnd(14)} bare ${f.bareMs.toFixed(0)} ms, guarded ${f.guardedMs.toFixed(0)} ms, wall ratio ${f.ratio.toFixed(3)}x (target <= ${TARGET}x: ${verdict(f.ratio, TARGET)}), CPU ratio ${f.cpuRatio.toFixed(3)}x`)
      console.log(`  ${"".padEnd(14)} loopguard's own share: against a bare consumer of the single call the guarded step makes (${f.callMs.toFixed(0)} ms), ${f.callRatio.toFixed(3)}x`)
    }
    return figures
  } finally {
    await server.close()
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) await main()
