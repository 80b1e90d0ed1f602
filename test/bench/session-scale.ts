/**
 * Per-step cost against session length: one scripted session of up to 10 000 steps (each step a
 * short reasoning + text preamble and one tool call with fresh arguments, so no detector fires),
 * through the real RunLoop with the default config, the real Events PubSub and a real store (the
 * in-memory one, or SQLite in a temp folder with `--store=sqlite`). The model is in-process and
 * answers at once, so each figure is loopguard's own work per step (request view, processor,
 * classification, cross-step detectors, store), not the wire's.
 * Per-step time is the mean gap between consecutive model calls over the 50 steps before each
 * mark, in CPU time of this process (user + system: on a shared, loaded machine wall time mostly
 * measures the neighbours), and the median gap in wall time; memory is the heap after a full GC at
 * the mark. The session runs `RUNS` times in this process and the ratio reported is the median of
 * the runs' ratios (one 50-step window is ~10 ms of CPU: a single run is at the neighbours' mercy).
 *
 *   bun run test/bench/session-scale.ts [--quick] [--store=memory|sqlite] [--steps=N]
 */
import type { StreamPart } from "@loopguard/core/model"
import { ConfigService, DEFAULT_CONFIG, Events, layerSqliteStore, LLM, loopguardLayer, Permission, RunLoop, SessionStore, Tools, type LlmRequest } from "@loopguard/effect"
import { Effect, Layer, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { mb, median, quick, verdict } from "./lib/measure.js"

export const TARGET = 1.2
const WINDOW = 50
const RUNS = 3

export type StoreKind = "memory" | "sqlite"

const stepParts = (n: number, final: boolean): ReadonlyArray<StreamPart> =>
  final
    ? [{ type: "start" }, { type: "text-delta", text: "All done." }, { type: "finish", finish: "stop" }]
    : [
        { type: "start" },
        { type: "reasoning-delta", text: `Step ${n}: look at item ${n * 7919} next.` },
        { type: "text-delta", text: `Checking item ${n} of the list, ` },
        { type: "text-delta", text: `then moving on to ${n + 1}.` },
        { type: "tool-call", id: `c${n}`, name: "note", input: { item: n, text: `item ${n * 31}` } },
        { type: "finish", finish: "tool-calls", usage: { inputTokens: 100, outputTokens: 20 } }
      ]

/** n in base 26 as letters (a, b, …, ba, bb, …). */
const letters = (n: number): string => {
  let s = ""
  do {
    s = String.fromCharCode(97 + (n % 26)) + s
    n = Math.floor(n / 26)
  } while (n > 0)
  return s
}

export interface ScalePoint {
  readonly step: number
  /** CPU time (user + system) per step. */
  readonly msPerStep: number
  /** Median wall time of one step in the window. */
  readonly wallMsPerStep: number
  readonly heapBytes: number
}

export const runSession = async (steps: number, marks: ReadonlyArray<number>, store: StoreKind = "memory"): Promise<ReadonlyArray<ScalePoint>> => {
  const callTimes: Array<number> = []
  // process.cpuUsage costs ~0.1 ms under Bun: read only where a window starts or ends.
  const cpuAt = new Map<number, number>()
  const cpuMarks = new Set(marks.flatMap((m) => [m - WINDOW, m]))
  const cpuMs = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const points: Array<ScalePoint> = []
  const gc = (globalThis as { Bun?: { gc: (full: boolean) => void } }).Bun?.gc
  const llm = LLM.of({
    providerId: "bench",
    modelId: "bench",
    stream: (request: LlmRequest) =>
      Stream.suspend(() => {
        const n = callTimes.length
        if (marks.includes(n)) {
          const recent = callTimes.slice(-WINDOW - 1)
          const wallMsPerStep = median(recent.slice(1).map((t, i) => t - recent[i]!))
          const msPerStep = (cpuMs() - cpuAt.get(n - WINDOW)!) / WINDOW
          gc?.(true)
          points.push({ step: n, msPerStep, wallMsPerStep, heapBytes: process.memoryUsage().heapUsed })
          if (request.messages.length < n) throw new Error(`the request holds ${request.messages.length} messages at step ${n}`)
        }
        // Measured after the GC, so a mark's collection is not charged to the next step.
        callTimes.push(performance.now())
        if (cpuMarks.has(n)) cpuAt.set(n, cpuMs())
        return Stream.fromIterable(stepParts(n, n >= steps - 1))
      })
  })
  const config = structuredClone(DEFAULT_CONFIG)
  const tools = Layer.effect(Tools, Tools.make([
    {
      spec: { name: "note", description: "note an item", inputSchema: { type: "object", properties: { item: { type: "number" }, text: { type: "string" } } } },
      // Letters, not digits: the observation detectors read numbers as noise.
      run: async (input) => ({ state: "completed", output: `noted ${letters(Number(input["item"]))}` })
    }
  ]))
  const configLayer = Layer.succeed(ConfigService, { ...config, loop: { ...config.loop, maxSteps: steps + 10 } })
  const dir = store === "sqlite" ? mkdtempSync(join(tmpdir(), "lg-scale-")) : null
  const storeLayer = dir === null ? SessionStore.layerMemory : layerSqliteStore(dir)
  const deps = Layer.mergeAll(Layer.succeed(LLM, llm), tools.pipe(Layer.provide(configLayer)), configLayer, Events.layer, Permission.layerDeny, storeLayer)
  const result = await Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "scale", prompt: "Work through the list." })
    }).pipe(Effect.provide(loopguardLayer(deps)))
  ).finally(() => dir !== null && rmSync(dir, { recursive: true, force: true }))
  if (result.report.reason !== "final") throw new Error(`the session ended with ${result.report.reason}, not final: ${JSON.stringify(result.report).slice(0, 500)}`)
  return points
}

const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)

export const main = async (isQuick = quick(), store: StoreKind = (flag("store") as StoreKind | undefined) ?? "memory", lastStep?: number) => {
  if (store !== "memory" && store !== "sqlite") throw new Error(`--store must be memory or sqlite, not ${String(store)}`)
  const last = lastStep ?? Number(flag("steps") ?? (isQuick ? 3_000 : 10_000))
  if (!Number.isInteger(last) || last < 100) throw new Error(`--steps must be a whole number of at least 100, not ${flag("steps")}`)
  const marks = [100, 1_000, last].filter((m, i, all) => m <= last && all.indexOf(m) === i)
  const steps = last + 1
  // A short session first, so the JIT has compiled the loop before the first mark is measured.
  await runSession(500, [], store)
  const runs: Array<{ points: ReadonlyArray<ScalePoint>; seconds: number; ratio: number; wallRatio: number }> = []
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now()
    const points = await runSession(steps, marks, store)
    const seconds = (performance.now() - t0) / 1000
    const first = points[0]!
    const end = points.at(-1)!
    runs.push({ points, seconds, ratio: end.msPerStep / first.msPerStep, wallRatio: end.wallMsPerStep / first.wallMsPerStep })
  }
  console.log(`One scripted session of ${steps.toLocaleString()} steps through the RunLoop (in-process model, ${store} store), ${RUNS} runs`)
  for (const [r, run] of runs.entries()) {
    console.log(`  run ${r + 1}: ${run.seconds.toFixed(1)} s; CPU ratio ${run.ratio.toFixed(2)}x, wall ratio ${run.wallRatio.toFixed(2)}x`)
    for (const p of run.points) console.log(`    at step ${String(p.step).padStart(6)}: ${p.msPerStep.toFixed(3)} ms CPU/step (mean of the last ${WINDOW}), ${p.wallMsPerStep.toFixed(3)} ms wall/step (median), heap ${mb(p.heapBytes)}`)
  }
  const points = runs.at(-1)!.points
  const first = points[0]!
  const end = points.at(-1)!
  const growth = (end.heapBytes - first.heapBytes) / (end.step - first.step)
  console.log(`  heap growth ${(growth / 1024).toFixed(1)} KiB/step between step ${first.step} and ${end.step} (last run; the stored history itself, see docs/performance.md)`)
  const ratio = median(runs.map((r) => r.ratio))
  const wallRatio = median(runs.map((r) => r.wallRatio))
  console.log(`  per-step CPU time at ${end.step} / at ${first.step}, median of ${RUNS} runs: ${ratio.toFixed(2)}x (target <= ${TARGET}x: ${verdict(ratio, TARGET)}); wall (median step): ${wallRatio.toFixed(2)}x`)
  return { points, ratio, seconds: runs.reduce((n, r) => n + r.seconds, 0) }
}

if (import.meta.main) await main()
