/**
 * Per-step cost against session length: one scripted session of up to 10 000 steps (each step a
 * short reasoning + text preamble and one tool call with fresh arguments, so no detector fires),
 * through the real RunLoop with the default config, the real Events PubSub and the in-memory
 * store. The model is in-process and answers at once, so each figure is loopguard's own work per
 * step (request view, processor, classification, cross-step detectors, store), not the wire's.
 * Per-step time is the mean gap between consecutive model calls over the 50 steps before each
 * mark, in CPU time of this process (user + system: on a shared, loaded machine wall time mostly
 * measures the neighbours) and in wall time; memory is the heap after a full GC at the mark.
 *
 *   bun run test/bench/session-scale.ts [--quick]
 */
import type { StreamPart } from "@loopguard/core/model"
import { ConfigService, DEFAULT_CONFIG, Events, LLM, loopguardLayer, Permission, RunLoop, SessionStore, Tools, type LlmRequest } from "@loopguard/effect"
import { Effect, Layer, Stream } from "effect"
import { mb, quick, verdict } from "./lib/measure.js"

export const TARGET = 1.2
const WINDOW = 50

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
  readonly wallMsPerStep: number
  readonly heapBytes: number
}

export const runSession = async (steps: number, marks: ReadonlyArray<number>): Promise<ReadonlyArray<ScalePoint>> => {
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
          const wallMsPerStep = (recent.at(-1)! - recent[0]!) / (recent.length - 1)
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
  const tools = Tools.layerFrom([
    {
      spec: { name: "note", description: "note an item", inputSchema: { type: "object", properties: { item: { type: "number" }, text: { type: "string" } } } },
      // Letters, not digits: the observation detectors read numbers as noise.
      run: async (input) => ({ state: "completed", output: `noted ${letters(Number(input["item"]))}` })
    }
  ])
  const configLayer = Layer.succeed(ConfigService, { ...config, loop: { ...config.loop, maxSteps: steps + 10 } })
  const deps = Layer.mergeAll(Layer.succeed(LLM, llm), tools.pipe(Layer.provide(configLayer)), configLayer, Events.layer, Permission.layerDeny, SessionStore.layerMemory)
  const result = await Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "scale", prompt: "Work through the list." })
    }).pipe(Effect.provide(loopguardLayer(deps)))
  )
  if (result.report.reason !== "final") throw new Error(`the session ended with ${result.report.reason}, not final: ${JSON.stringify(result.report).slice(0, 500)}`)
  return points
}

export const main = async (isQuick = quick()) => {
  const marks = isQuick ? [100, 1_000, 3_000] : [100, 1_000, 10_000]
  const steps = marks.at(-1)! + 1
  // A short session first, so the JIT has compiled the loop before the first mark is measured.
  await runSession(500, [])
  const t0 = performance.now()
  const points = await runSession(steps, marks)
  const seconds = (performance.now() - t0) / 1000
  const first = points[0]!
  const last = points.at(-1)!
  const ratio = last.msPerStep / first.msPerStep
  console.log(`One scripted session of ${steps.toLocaleString()} steps through the RunLoop (in-process model), ${seconds.toFixed(1)} s`)
  for (const p of points) console.log(`  at step ${String(p.step).padStart(6)}: ${p.msPerStep.toFixed(3)} ms CPU/step, ${p.wallMsPerStep.toFixed(3)} ms wall/step (means of the last ${WINDOW}), heap ${mb(p.heapBytes)}`)
  const growth = (last.heapBytes - first.heapBytes) / (last.step - first.step)
  console.log(`  heap growth ${(growth / 1024).toFixed(1)} KiB/step between step ${first.step} and ${last.step} (the stored history itself)`)
  console.log(`  per-step CPU time at ${last.step} / at ${first.step}: ${ratio.toFixed(2)}x (target <= ${TARGET}x: ${verdict(ratio, TARGET)})`)
  return { points, ratio, seconds }
}

if (import.meta.main) await main()
