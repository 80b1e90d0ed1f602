/**
 * One model request → one recorded reply. Streams the request through the monitors, stops
 * consuming with `Stream.takeUntil` the moment one trips (what streamed is kept), runs tool
 * calls as they arrive, and retries failures through the RetryCoordinator: request-phase
 * errors are retried in place, stream-phase errors replay the step only while no tool call
 * has arrived (a tool must never run twice). A tool call is written ahead to the store
 * (`running`) before it runs and written again when it finished, so a crash in between leaves a
 * record the next run shows the model as interrupted (runloop/resume.ts). A store failure is not
 * a model failure: it is never retried, and fails the step with the store's typed error.
 */
import { ReplyBuilder, type AssistantMessage, type NormalizedError, type StreamPart } from "@loopguard/core/model"
import type { GuardTrip } from "@loopguard/core/repeat"
import type { Incident } from "@loopguard/core/report"
import { isPrefillRejection, uiMessageOf } from "@loopguard/core/retry"
import { Context, Data, Effect, Filter, Layer, Stream } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { repeatGuardOptionsOf } from "../config/repeat-guard-options.js"
import { Events, stampIds, withEventIds } from "../events/Events.js"
import { LLM, LlmError, type LlmRequest, type LlmShape } from "../llm/LLM.js"
import { RetryCoordinator } from "../retry/RetryCoordinator.js"
import { retryOnly, type RetryExhausted } from "../retry/retry-only.js"
import { SessionStore } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { Tools, type ToolResult } from "../tools/Tools.js"
import { repeatMonitor, type MonitorFactory, type MonitorTrip, type StreamMonitor } from "./monitors.js"
import { giveUpError } from "./give-up.js"
import { makeCallRepair } from "./call-repair.js"
import { ToolGate } from "./ToolGate.js"
import { chunkTimeout } from "./chunk-timeout.js"
import { PartObserver } from "./part-observer.js"
import { runToolCall, type ToolCallPart, type ToolRunContext, type ToolRunDeps } from "./run-tool.js"
import { runTextToolCalls } from "./text-calls.js"


interface AttemptResult {
  readonly reply: ReplyBuilder
  readonly trip: MonitorTrip | null
  readonly error: NormalizedError | null
  /** A tool-call event arrived (its tool ran): the step is no longer replay-safe. */
  readonly toolCalled: boolean
  /** Incidents the attempt filed (refused or repaired calls, text calls run). */
  readonly incidents: ReadonlyArray<Incident>
}

/** The schedule's input: an attempt that failed in a way a retry might fix. */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{ readonly error: NormalizedError }> {}

export type StepOutcome =
  | { readonly type: "continue" }
  | {
      readonly type: "text-repeat"
      /** Which rule tripped and where (the short-period rule, `short`, or the long-period rule). */
      readonly trip: GuardTrip
      /** The short-period rule's block length in tokens; null when the long rule tripped. */
      readonly period: number | null
      readonly token: number
      /** Back-to-back copies when it tripped. */
      readonly repeats: number
    }
  | { readonly type: "paused"; readonly incident: Readonly<Record<string, unknown>>; readonly notice: string }
  | { readonly type: "stop"; readonly reason: string }
  | { readonly type: "error"; readonly error: NormalizedError }

export interface ProcessInput {
  readonly sessionId: string
  readonly parentId: string
  readonly step: number
  readonly request: LlmRequest
  /** Extra monitors for this step (try-best, tests); the repeat monitor comes from config. */
  readonly monitors?: ReadonlyArray<MonitorFactory>
  /** Tools answered by the caller itself (e.g. the structured-output tool), before the Tools service. */
  readonly localTools?: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>>
  /** Asked before a call runs (per-tool caps): a refusal text means the call is answered, not run. */
  readonly admitTool?: (name: string) => Effect.Effect<string | undefined, SessionStoreError>
  /**
   * What to do with tool calls written in the reply's text: `execute` (default: `textToolCalls.mode`
   * says) or `report` (shadow replays: file what a live run would run, change nothing).
   */
  readonly textToolCalls?: "execute" | "report"
  /**
   * The `session.status` retry number: runs on across phases and steps, reset only when the session
   * goes idle (the RunLoop owns it). Without it, numbers run across the phases of this step only.
   */
  readonly nextStatusAttempt?: () => number
  /** Makes ids for the reply messages (one per attempt). */
  readonly messageId: (attempt: number) => string
  /** The model for this step instead of the layer's `LLM` (the breaker's reroute). */
  readonly llm?: LlmShape
  /** Tools are held back on this step (a tool-less cap step, the breaker's cooldown): calls are answered with this, not run. */
  readonly toolsPaused?: string
}

export interface ProcessResult {
  readonly outcome: StepOutcome
  readonly message: AssistantMessage
  /** How many attempts the step took (1 = no retry). */
  readonly attempts: number
  /** Incidents the processor filed for the recorded attempt (already published as events). */
  readonly incidents: ReadonlyArray<Incident>
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

export interface SessionProcessorShape {
  readonly process: (input: ProcessInput) => Effect.Effect<ProcessResult, SessionStoreError>
}

/** One step: stream the reply, feed the monitors, run tool calls as they arrive, retry or replay failed attempts. */
export class SessionProcessor extends Context.Service<SessionProcessor, SessionProcessorShape>()("loopguard/SessionProcessor") {
  static readonly layer = Layer.effect(
    SessionProcessor,
    Effect.gen(function* () {
      const llm = yield* LLM
      const store = yield* SessionStore
      const events = stampIds(yield* Events)
      const config = yield* ConfigService
      const tools = yield* Tools
      const retry = yield* RetryCoordinator
      const gate = yield* ToolGate
      const toolDeps: ToolRunDeps = { events, tools, gate, store, repairs: makeCallRepair(config) }
      const listening = events.listening ?? (() => true)
      const progressOptions = { intervalMs: config.stream.progressIntervalMs, listening, now: () => Date.now() }
      const baseMonitors: ReadonlyArray<MonitorFactory> = config.repeat.enabled
        ? [repeatMonitor(repeatGuardOptionsOf(config.repeat))]
        : []

      /** One attempt: stream, record, run tools, stop at the first trip. */
      const attempt = (input: ProcessInput, request: LlmRequest, n: number, incidents: Array<Incident>) =>
        Effect.gen(function* () {
          const reply = new ReplyBuilder(input.messageId(n), input.parentId, input.step, llm.modelId)
          const monitors: Array<StreamMonitor> = [...baseMonitors, ...(input.monitors ?? [])].map((f) => f({ step: input.step, attempt: n }))
          const observer = new PartObserver(reply, monitors, progressOptions)
          const publishProgress = (force: boolean): Effect.Effect<void> => {
            const p = observer.takeProgress(force)
            return p === null ? Effect.void : events.publish({ type: "stream.progress", step: input.step, tokens: p.tokens, text: p.text })
          }
          const stopWith = (stop: boolean) => Effect.as(publishProgress(false), [stop] as const)
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
          const runTool = (called: ToolCallPart) => runToolCall(toolDeps, toolCtx, called)
          const persist = partialSaver(config.stream.persistIntervalMs, () =>
            store.putAssistant(input.sessionId, { ...reply.build(), finish: "unknown", error: STILL_STREAMING })
          )

          /** One chunk of parts in a plain loop; an Effect only for a tool call or a due progress event. */
          const onChunk = (chunk: ReadonlyArray<StreamPart>, from: number): Effect.Effect<readonly [boolean], SessionStoreError> => {
            for (let i = from; i < chunk.length; i++) {
              const part = chunk[i]!
              const seen = observer.observe(part)
              if (seen === "stop") return stopWith(true)
              if (seen === "tool") {
                return Effect.flatMap(publishProgress(false), () =>
                  Effect.flatMap(runTool(part as ToolCallPart), (t) => {
                    if (t === null) return onChunk(chunk, i + 1)
                    observer.trip = t
                    return stopWith(true)
                  })
                )
              }
            }
            return reply.hasContent ? Effect.flatMap(persist(), () => stopWith(false)) : stopWith(false)
          }

          // A provider's own chunk timeout wins (like MiMo Code's `provider.<id>` chunkTimeout), else the global one.
          const model = input.llm ?? llm
          const providerId = model.providerId
          const chunkTimeoutMs = (Object.hasOwn(config.provider, providerId) ? config.provider[providerId]?.chunkTimeoutMs : undefined) ?? config.stream.chunkTimeoutMs
          const parts = model.stream({ ...request, chunkTimeoutMs })
          yield* (model.timesChunks === true ? parts : parts.pipe(chunkTimeout(chunkTimeoutMs))).pipe(
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
                ? store.putAssistant(input.sessionId, {
                    ...reply.build(),
                    finish: reply.finish ?? "unknown",
                    error: { message: "cancelled: interrupted before the reply finished", name: "CancelledError", aborted: true }
                  }).pipe(Effect.ignore)
                : Effect.void
            )
          )

          yield* publishProgress(true)
          if (observer.trip === null && observer.streamError === null && config.textToolCalls.mode === "execute") {
            const t = yield* runTextToolCalls(toolDeps, toolCtx, request, input.textToolCalls ?? "execute")
            if (t !== null) ((observer.trip = t), (observer.toolCalled = true))
          }
          observer.onEnd()
          // The stream ended without saying why: never taken as done (docs/run-loop.md).
          if (observer.trip === null && observer.streamError === null && reply.finish === undefined) reply.setFinish("unknown")
          return { reply, trip: observer.trip, error: observer.streamError, toolCalled: observer.toolCalled, incidents } satisfies AttemptResult
        })

      const process = Effect.fn("SessionProcessor.process")(function* (input: ProcessInput) {
        let request = input.request
        let n = 0
        let last: AttemptResult | null = null
        // Every attempt's incidents, replayed ones too: each was published, so each is in the report.
        const stepIncidents: Array<Incident> = []
        let prefillDropped = false
        let stepRetries = 0
        const nextStatusAttempt = input.nextStatusAttempt ?? (() => ++stepRetries)

        /** One attempt; a failure that the schedule may retry fails the effect with AttemptFailed. */
        const once = Effect.gen(function* () {
          while (true) {
            // A retried attempt stays in the store, excluded, so nothing it wrote is sent or shown twice.
            if (last !== null && last.error !== null && last.reply.hasContent) {
              yield* store.putAssistant(input.sessionId, { ...last.reply.build(), error: last.error, excluded: "replayed" })
            }
            n += 1
            yield* events.publish({ type: "step.started", step: input.step, attempt: n })
            const r = yield* attempt(input, request, n, stepIncidents)
            last = r
            if (r.trip !== null || r.error === null) return r
            // A backend that rejects assistant prefill: once, at once, without the trailing assistant message.
            if (!prefillDropped && !r.toolCalled && isPrefillRejection(r.error) && request.messages.at(-1)?.role === "assistant") {
              prefillDropped = true
              request = { ...request, messages: request.messages.slice(0, -1) }
              yield* events.publish({
                type: "session.retry.attempt",
                phase: r.error.phase ?? "request",
                scope: "request",
                kind: "prefill",
                attempt: n,
                maxRetries: 1,
                delayMs: 0,
                message: r.error.message
              })
              continue
            }
            return yield* Effect.fail(new AttemptFailed({ error: r.error }))
          }
        })

        // The coordinator owns every budget: this step only says when a replay is unsafe and what to announce.
        const policy = retry.policy<AttemptFailed>({
          normalize: (f) => f.error,
          // Once a tool call arrived its tool has run: replaying the step could run it twice.
          replaySafe: () => !(last?.toolCalled ?? false),
          mainSession: config.loop.role === "main",
          onAttempt: (info) =>
            Effect.gen(function* () {
              yield* events.publish({
                type: "session.retry.attempt",
                phase: info.phase,
                scope: info.scope,
                kind: info.kind,
                attempt: info.attempt,
                maxRetries: info.maxRetries,
                delayMs: info.delayMs,
                message: info.error.message
              })
              yield* events.publish({ type: "session.status", status: "retry", attempt: nextStatusAttempt(), delayMs: info.delayMs })
            })
        })

        const outcome: StepOutcome = yield* once.pipe(
          // Only the attempt's own failure is retried; a store failure fails the step as itself.
          retryOnly(Filter.tagged<AttemptFailed | SessionStoreError>()("AttemptFailed"), policy),
          Effect.map((r): StepOutcome => {
            const t = r.trip
            if (t === null) return { type: "continue" }
            if (t.outcome === "paused") {
              r.reply.addSyntheticText(t.notice, { incident: t.incident })
              r.reply.setFinish("stop")
              return { type: "paused", incident: t.incident, notice: t.notice }
            }
            if (t.outcome === "stop") return { type: "stop", reason: t.reason }
            if (t.outcome === "halt") return { type: "continue" }
            const g = t.trip
            return g.rule === "short"
              ? { type: "text-repeat", trip: g, period: g.period, token: g.token, repeats: g.repeats }
              : { type: "text-repeat", trip: g, period: null, token: g.token, repeats: g.copies }
          }),
          Effect.catchTag("RetryExhausted", ({ failure, stop }: RetryExhausted<AttemptFailed>) =>
            Effect.gen(function* () {
              const recorded = giveUpError(failure.error, stop.reason, stop.attempt)
              last!.reply.setError(recorded)
              if (last!.reply.finish === undefined) last!.reply.setFinish("error")
              if (stop.reason === "not-retryable") {
                yield* events.publish({ type: "session.retry.terminal", kind: stop.decision.kind, message: failure.error.message, uiMessage: uiMessageOf(failure.error) })
              }
              return { type: "error", error: recorded } satisfies StepOutcome
            })
          )
        )

        const message = last!.reply.build()
        yield* store.putAssistant(input.sessionId, message)
        yield* events.publish({ type: "step.finished", step: input.step, outcome: outcome.type, finish: message.finish ?? "none" })
        return { outcome, message, attempts: n, incidents: stepIncidents } satisfies ProcessResult
      })

      /** Every event of the call names its session and the model that served it (a fallback model included). */
      const idsOf = (input: ProcessInput) => ({ sessionId: input.sessionId, provider: (input.llm ?? llm).providerId, modelId: (input.llm ?? llm).modelId })
      return SessionProcessor.of({ process: (input) => process(input).pipe(withEventIds(idsOf(input))) })
    })
  )
}

