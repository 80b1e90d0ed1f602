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
import { ReplyBuilder, type AssistantMessage, type NormalizedError, type StreamPart, type ToolPart } from "@loopguard/core/model"
import type { GuardTrip } from "@loopguard/core/repeat"
import { isPrefillRejection } from "@loopguard/core/retry"
import { Context, Data, Effect, Layer, Stream } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { repeatGuardOptionsOf } from "../config/repeat-guard-options.js"
import { Events } from "../events/Events.js"
import { LLM, LlmError, type LlmRequest, type LlmShape } from "../llm/LLM.js"
import { RetryCoordinator } from "../retry/RetryCoordinator.js"
import type { RetryStop } from "../retry/schedule.js"
import { SessionStore } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { Tools, type ToolResult } from "../tools/Tools.js"
import { repeatMonitor, type MonitorFactory, type MonitorTrip, type StreamMonitor } from "./monitors.js"
import { chunkTimeout } from "./chunk-timeout.js"
import { PartObserver } from "./part-observer.js"
import { giveUpError } from "./give-up.js"
import { makeCallRepair } from "./call-repair.js"
import { ToolGate } from "./ToolGate.js"

interface AttemptResult {
  readonly reply: ReplyBuilder
  readonly trip: MonitorTrip | null
  readonly error: NormalizedError | null
  /** A tool-call event arrived (its tool ran): the step is no longer replay-safe. */
  readonly toolCalled: boolean
}

/** The schedule's input: an attempt that failed in a way a retry might fix. */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{ readonly error: NormalizedError }> {}

export type StepOutcome =
  | { readonly type: "continue" }
  | {
      readonly type: "text-repeat"
      /** Which rule tripped and where (SPEC §1's `short`, or the long-period rule). */
      readonly trip: GuardTrip
      /** SPEC §1's block length in tokens; null when the long rule tripped. */
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
      const events = yield* Events
      const config = yield* ConfigService
      const tools = yield* Tools
      const retry = yield* RetryCoordinator
      const gate = yield* ToolGate
      const repairs = makeCallRepair(config)
      const baseMonitors: ReadonlyArray<MonitorFactory> = config.repeat.enabled
        ? [repeatMonitor(repeatGuardOptionsOf(config.repeat))]
        : []

      const listening = events.listening ?? (() => true)
      const progressOptions = { intervalMs: config.stream.progressIntervalMs, listening, now: () => Date.now() }

      /** One attempt: stream, record, run tools, stop at the first trip. */
      const attempt = (input: ProcessInput, request: LlmRequest, n: number) =>
        Effect.gen(function* () {
          const reply = new ReplyBuilder(input.messageId(n), input.parentId, input.step, llm.modelId)
          const monitors: Array<StreamMonitor> = [...baseMonitors, ...(input.monitors ?? [])].map((f) => f({ step: input.step, attempt: n }))
          const observer = new PartObserver(reply, monitors, progressOptions)
          const publishProgress = (force: boolean): Effect.Effect<void> => {
            const p = observer.takeProgress(force)
            return p === null ? Effect.void : events.publish({ type: "stream.progress", step: input.step, tokens: p.tokens, text: p.text })
          }
          const stopWith = (stop: boolean) => Effect.as(publishProgress(false), [stop] as const)

          const checkTool = (part: ToolPart): MonitorTrip | null => {
            for (const m of monitors) {
              const t = m.onToolFinished?.(part, input.step) ?? null
              if (t) return t
            }
            return null
          }

          const runTool = (called: Extract<StreamPart, { type: "tool-call" }>) =>
            Effect.gen(function* () {
              // SPEC §7 in-place repair (aliases, defaults, nulls, server names): no retry, the fixed call runs.
              const fixed = repairs.apply(called, request.system)
              const part = fixed.part
              if (fixed.repairs.length > 0) {
                reply.updateTool(part.id, (p) => ({ ...p, name: part.name, input: part.input }))
                yield* events.publish({ type: "incident", step: input.step, detector: "repair", action: "repaired", kind: "recovery", detail: { tool: part.name, repairs: fixed.repairs } })
              }
              // The caller holds tools back on this step (a tool-less cap step, the breaker's cooldown).
              if (input.toolsPaused !== undefined) {
                const error = input.toolsPaused
                reply.updateTool(part.id, (p) => ({ ...p, state: "error", error }))
                yield* events.publish({ type: "incident", step: input.step, detector: "tools-paused", action: "refused", kind: "recovery", detail: { tool: part.name, reason: error } })
                return null
              }
              const allowed = yield* gate.beforeCall(reply.build(), { id: part.id, name: part.name, input: part.input }, input.step)
              if (allowed._tag === "deny") {
                reply.updateTool(part.id, (p) => ({ ...p, state: "error", error: allowed.reason }))
                return { outcome: "stop", monitor: "doom-loop", reason: allowed.reason } satisfies MonitorTrip
              }
              const refusal = input.admitTool === undefined ? undefined : yield* input.admitTool(part.name)
              if (refusal !== undefined) {
                reply.updateTool(part.id, (p) => ({ ...p, state: "error", error: refusal }))
                return null
              }
              reply.updateTool(part.id, (p) => ({ ...p, state: "running" }))
              // Written ahead: from here on, a crash leaves a record that this call may have run.
              yield* store.putAssistant(input.sessionId, reply.build())
              yield* events.publish({ type: "tool.started", step: input.step, callId: part.id, name: part.name, input: part.input })
              const started = Date.now()
              const local = input.localTools?.get(part.name)
              const result = local ? yield* local(part.input) : yield* tools.execute({ id: part.id, name: part.name, input: part.input })
              const finished = reply.updateTool(part.id, (p) => ({
                ...p,
                state: result.state,
                output: result.output,
                ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
                ...(result.error !== undefined ? { error: result.error } : {}),
                ...(result.path !== undefined ? { path: result.path } : {}),
                ...(result.diff !== undefined ? { diff: result.diff } : {})
              }))
              yield* events.publish({
                type: "tool.finished",
                step: input.step,
                callId: part.id,
                name: part.name,
                state: result.state,
                ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
                durationMs: Date.now() - started
              })
              yield* store.putAssistant(input.sessionId, reply.build())
              return finished ? checkTool(finished) : null
            })


          /** One chunk of parts in a plain loop; an Effect only for a tool call or a due progress event. */
          const onChunk = (chunk: ReadonlyArray<StreamPart>, from: number): Effect.Effect<readonly [boolean], SessionStoreError> => {
            for (let i = from; i < chunk.length; i++) {
              const part = chunk[i]!
              const seen = observer.observe(part)
              if (seen === "stop") return stopWith(true)
              if (seen === "tool") {
                const called = part as Extract<StreamPart, { type: "tool-call" }>
                return Effect.flatMap(publishProgress(false), () =>
                  Effect.flatMap(runTool(called), (t) => {
                    if (t === null) return onChunk(chunk, i + 1)
                    observer.trip = t
                    return stopWith(true)
                  })
                )
              }
            }
            return stopWith(false)
          }

          yield* (input.llm ?? llm).stream(request).pipe(
            chunkTimeout(config.stream.chunkTimeoutMs),
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
          observer.onEnd()
          // The stream ended without saying why: never taken as done (SPEC §8).
          if (observer.trip === null && observer.streamError === null && reply.finish === undefined) reply.setFinish("unknown")
          return { reply, trip: observer.trip, error: observer.streamError, toolCalled: observer.toolCalled } satisfies AttemptResult
        })

      const process = Effect.fn("SessionProcessor.process")(function* (input: ProcessInput) {
        let request = input.request
        let n = 0
        let last: AttemptResult | null = null
        let prefillDropped = false
        let stopped: RetryStop | null = null
        let storeFailure: SessionStoreError | null = null
        /** A store failure leaves the retry loop as a success marker, then fails the step as itself. */
        const storeFailed = <A>(e: Effect.Effect<A, SessionStoreError>) =>
          e.pipe(
            Effect.catchTag("SessionStoreError", (err) =>
              Effect.sync(() => {
                storeFailure = err
                return "store-failed" as const
              })
            )
          )

        /** One attempt; a failure that the schedule may retry fails the effect with AttemptFailed. */
        const once = Effect.gen(function* () {
          while (true) {
            // A retried attempt stays in the store, excluded, so nothing it wrote is sent or shown twice.
            if (last !== null && last.error !== null && last.reply.hasContent) {
              const saved = yield* storeFailed(store.putAssistant(input.sessionId, { ...last.reply.build(), error: last.error, excluded: "replayed" }))
              if (saved === "store-failed") return saved
            }
            n += 1
            yield* events.publish({ type: "step.started", step: input.step, attempt: n })
            const r = yield* storeFailed(attempt(input, request, n))
            if (r === "store-failed") return r
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
              yield* events.publish({ type: "session.status", status: "retry", attempt: info.attempt, delayMs: info.delayMs })
            }),
          onStop: (stop) => Effect.sync(() => void (stopped = stop))
        })

        const outcome: StepOutcome = yield* once.pipe(
          Effect.retry(policy),
          Effect.flatMap((r) => (r === "store-failed" ? Effect.fail(storeFailure as unknown as SessionStoreError) : Effect.succeed(r))),
          Effect.map((r): StepOutcome => {
            const t = r.trip
            if (t === null) return { type: "continue" }
            if (t.outcome === "paused") {
              r.reply.addSyntheticText(t.notice, { incident: t.incident })
              r.reply.setFinish("stop")
              return { type: "paused", incident: t.incident, notice: t.notice }
            }
            if (t.outcome === "stop") return { type: "stop", reason: t.reason }
            const g = t.trip
            return g.rule === "short"
              ? { type: "text-repeat", trip: g, period: g.period, token: g.token, repeats: g.repeats }
              : { type: "text-repeat", trip: g, period: null, token: g.token, repeats: g.copies }
          }),
          Effect.catchTag("AttemptFailed", (failed: AttemptFailed) =>
            Effect.gen(function* () {
              const why = stopped as RetryStop | null
              const recorded = why === null ? failed.error : giveUpError(failed.error, why.reason, why.attempt)
              last!.reply.setError(recorded)
              if (last!.reply.finish === undefined) last!.reply.setFinish("error")
              if (why === null || why.reason === "not-retryable") {
                yield* events.publish({ type: "session.retry.terminal", kind: why?.decision.kind ?? "terminal", message: failed.error.message })
              }
              return { type: "error", error: recorded } satisfies StepOutcome
            })
          )
        )

        const message = last!.reply.build()
        yield* store.putAssistant(input.sessionId, message)
        yield* events.publish({ type: "step.finished", step: input.step, outcome: outcome.type, finish: message.finish ?? "none" })
        return { outcome, message, attempts: n } satisfies ProcessResult
      })

      return SessionProcessor.of({ process: (input) => process(input) })
    })
  )
}

