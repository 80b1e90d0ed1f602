/**
 * One attempt at a step: stream the request through the monitors, record the reply as it comes,
 * run tool calls as they arrive, and stop consuming the moment a monitor trips (what streamed is kept).
 */
import { ReplyBuilder, type NormalizedError, type StreamPart } from "@loopguard/core/model"
import type { Incident } from "@loopguard/core/report"
import { Effect, Stream } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import type { Events } from "../events/Events.js"
import { LlmError, type LlmRequest, type LlmShape } from "../llm/LLM.js"
import type { SessionStore } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { chunkTimeout } from "./chunk-timeout.js"
import type { MonitorFactory, MonitorTrip } from "./monitors.js"
import { PartObserver, type ProgressOptions } from "@loopguard/core/model"
import { runToolCall, type ToolCallPart, type ToolRunContext, type ToolRunDeps } from "./run-tool.js"
import type { ProcessInput } from "./process-types.js"
import { runTextToolCalls } from "./text-calls.js"

export interface AttemptResult {
  readonly reply: ReplyBuilder
  readonly trip: MonitorTrip | null
  readonly error: NormalizedError | null
  /** A tool-call event arrived (its tool ran): the step is no longer replay-safe. */
  readonly toolCalled: boolean
  /** Incidents the attempt filed (refused or repaired calls, text calls run). */
  readonly incidents: ReadonlyArray<Incident>
}

/** What every attempt of the processor works with, resolved once by its layer. */
export interface AttemptDeps {
  readonly llm: LlmShape
  readonly store: SessionStore["Service"]
  readonly events: Events["Service"]
  readonly config: LoopguardConfig
  readonly toolDeps: ToolRunDeps
  readonly progressOptions: ProgressOptions
  /** The monitors of every step (the repeat monitor, when on). */
  readonly baseMonitors: ReadonlyArray<MonitorFactory>
}

/**
 * What a reply saved while it still streams carries: read after a crash it is a reply cut off by
 * the interruption (asked again on resume); the step's own save at its end replaces it.
 */
const STILL_STREAMING = { message: "interrupted: the reply was still streaming when it was last saved", name: "CancelledError", aborted: true } as const

/** Saves the partial reply at most once per `intervalMs` (never when 0); a step's save at its end is separate. */
export const partialSaver = (intervalMs: number, save: () => Effect.Effect<void, SessionStoreError>) => {
  let last = Date.now()
  return (): Effect.Effect<void, SessionStoreError> => {
    if (intervalMs <= 0 || Date.now() - last < intervalMs) return Effect.void
    last = Date.now()
    return save()
  }
}

/** One attempt's moving parts: the reply being built, its observer, and the tool context. */
interface Attempt {
  readonly input: ProcessInput
  readonly reply: ReplyBuilder
  readonly observer: PartObserver<MonitorTrip>
  readonly toolCtx: ToolRunContext
  readonly publishProgress: (force: boolean) => Effect.Effect<void>
}

const startAttempt = (deps: AttemptDeps, input: ProcessInput, request: LlmRequest, n: number, incidents: Array<Incident>): Attempt => {
  const reply = new ReplyBuilder(input.messageId(n), input.parentId, input.step, deps.llm.modelId)
  const monitors = [...deps.baseMonitors, ...(input.monitors ?? [])].map((f) => f({ step: input.step, attempt: n }))
  const observer = new PartObserver(reply, monitors, deps.progressOptions)
  const publishProgress = (force: boolean): Effect.Effect<void> => {
    const p = observer.takeProgress(force)
    return p === null ? Effect.void : deps.events.publish({ type: "stream.progress", step: input.step, tokens: p.tokens, text: p.text })
  }
  const toolCtx: ToolRunContext = {
    sessionId: input.sessionId,
    step: input.step,
    reply,
    monitors,
    system: request.system,
    localTools: input.localTools,
    incidents,
    ...(input.toolsPaused !== undefined ? { toolsPaused: input.toolsPaused } : {}),
    ...(input.admitTool !== undefined ? { admitTool: input.admitTool } : {})
  }
  return { input, reply, observer, toolCtx, publishProgress }
}

/**
 * A tool's trip stops the step with the rest of the chunk unread; the server's usage, when it came
 * in that chunk, is still what the step cost (the request was billed whole).
 */
const usageAfter = (chunk: ReadonlyArray<StreamPart>, from: number, reply: ReplyBuilder): void => {
  for (let i = from; i < chunk.length; i++) {
    const part = chunk[i]!
    if (part.type === "finish" && part.usage !== undefined) reply.noteUsage(part.usage)
  }
}

/** Handles chunks in a plain loop; an Effect only for a tool call or a due progress event. Answers whether to stop consuming. */
const chunkHandler = (deps: AttemptDeps, a: Attempt) => {
  const { reply, observer } = a
  const stopWith = (stop: boolean) => Effect.as(a.publishProgress(false), [stop] as const)
  const persist = partialSaver(deps.config.stream.persistIntervalMs, () =>
    deps.store.putAssistant(a.input.sessionId, { ...reply.build(), finish: "unknown", error: STILL_STREAMING })
  )
  const onChunk = (chunk: ReadonlyArray<StreamPart>, from: number): Effect.Effect<readonly [boolean], SessionStoreError> => {
    for (let i = from; i < chunk.length; i++) {
      const part = chunk[i]!
      const seen = observer.observe(part)
      if (seen === "stop") return stopWith(true)
      if (seen === "tool") {
        return Effect.flatMap(a.publishProgress(false), () =>
          Effect.flatMap(runToolCall(deps.toolDeps, a.toolCtx, part as ToolCallPart), (t) => {
            if (t === null) return onChunk(chunk, i + 1)
            observer.trip = t
            usageAfter(chunk, i + 1, reply)
            return stopWith(true)
          })
        )
      }
    }
    return reply.hasContent ? Effect.flatMap(persist(), () => stopWith(false)) : stopWith(false)
  }
  return onChunk
}

/** Streams the request into the attempt; a model error is kept on the observer, an interruption keeps what streamed. */
const streamInto = (deps: AttemptDeps, a: Attempt, request: LlmRequest): Effect.Effect<void, SessionStoreError> => {
  const { reply, observer, input } = a
  // A provider's own chunk timeout wins (like MiMo Code's `provider.<id>` chunkTimeout), else the global one.
  const model = input.llm ?? deps.llm
  const provider = deps.config.provider
  const chunkTimeoutMs = (Object.hasOwn(provider, model.providerId) ? provider[model.providerId]?.chunkTimeoutMs : undefined) ?? deps.config.stream.chunkTimeoutMs
  const parts = model.stream({ ...request, chunkTimeoutMs })
  const onChunk = chunkHandler(deps, a)
  return (model.timesChunks === true ? parts : parts.pipe(chunkTimeout(chunkTimeoutMs))).pipe(
    Stream.mapArrayEffect((chunk) => onChunk(chunk, 0)),
    // The design card's shape: stop consuming the moment a monitor trips.
    Stream.takeUntil((stop) => stop),
    Stream.runDrain,
    Effect.catchTag("LlmError", (e: LlmError) =>
      Effect.sync(() => {
        observer.streamError = { ...e.error, phase: e.error.phase ?? (reply.started ? "stream" : "request") }
      })
    ),
    // Cancelled from outside (Ctrl-C, step timeout): keep what already streamed.
    Effect.onInterrupt(() =>
      reply.hasContent
        ? deps.store.putAssistant(input.sessionId, {
            ...reply.build(),
            finish: reply.finish ?? "unknown",
            error: { message: "cancelled: interrupted before the reply finished", name: "CancelledError", aborted: true }
          }).pipe(Effect.ignore)
        : Effect.void
    )
  )
}

/** One attempt: stream, record, run tools (those written in text too), stop at the first trip. */
export const runAttempt = (deps: AttemptDeps, input: ProcessInput, request: LlmRequest, n: number, incidents: Array<Incident>): Effect.Effect<AttemptResult, SessionStoreError> =>
  Effect.gen(function* () {
    const a = startAttempt(deps, input, request, n, incidents)
    const { reply, observer } = a
    yield* streamInto(deps, a, request)
    yield* a.publishProgress(true)
    if (observer.trip === null && observer.streamError === null && deps.config.textToolCalls.mode === "execute") {
      const t = yield* runTextToolCalls(deps.toolDeps, a.toolCtx, request, input.textToolCalls ?? "execute")
      if (t !== null) ((observer.trip = t), (observer.toolCalled = true))
    }
    observer.onEnd()
    // The stream ended without saying why: never taken as done (docs/run-loop.md).
    if (observer.trip === null && observer.streamError === null && reply.finish === undefined) reply.setFinish("unknown")
    return { reply, trip: observer.trip, error: observer.streamError, toolCalled: observer.toolCalled, incidents } satisfies AttemptResult
  })
