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
import { streamedUsage } from "@loopguard/core/caps"
import type { NormalizedError, Usage } from "@loopguard/core/model"
import type { Incident } from "@loopguard/core/report"
import { isPrefillRejection, uiMessageOf } from "@loopguard/core/retry"
import { Context, Data, Effect, Filter, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { repeatGuardOptionsOf } from "../config/repeat-guard-options.js"
import { Events, stampIds, withEventIds } from "../events/Events.js"
import { LLM } from "../llm/LLM.js"
import { requestTokens } from "../llm/request-tokens.js"
import { RetryCoordinator } from "../retry/RetryCoordinator.js"
import { retryOnly, type RetryExhausted } from "../retry/retry-only.js"
import { SessionStore } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { Tools } from "../tools/Tools.js"
import { repeatMonitor, type MonitorFactory } from "./monitors.js"
import { giveUpError } from "./give-up.js"
import { makeCallRepair } from "./call-repair.js"
import { ToolGate } from "./ToolGate.js"
import { runAttempt, type AttemptDeps, type AttemptResult } from "./attempt.js"
import type { ProcessInput, ProcessResult, StepOutcome } from "./process-types.js"

export type { ProcessInput, ProcessResult, StepOutcome } from "./process-types.js"
export { partialSaver } from "./attempt.js"

/** The schedule's input: an attempt that failed in a way a retry might fix. */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{ readonly error: NormalizedError }> {}

export interface SessionProcessorShape {
  readonly process: (input: ProcessInput) => Effect.Effect<ProcessResult, SessionStoreError>
}

/** What the step's attempts cost in all, as the run's meter counts it (`streamedUsage`, replayed attempts too). */
const tokensOfStep = (usages: ReadonlyArray<Usage>) => {
  const tokens = { input: 0, output: 0, total: 0, estimated: false }
  for (const u of usages) {
    tokens.input += u.inputTokens ?? 0
    tokens.output += u.outputTokens ?? 0
    tokens.total += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0)
    tokens.estimated ||= u.estimated === true
  }
  return tokens
}

/** How the step's last attempt ended, as the run loop reads it. */
const outcomeOf = (r: AttemptResult): StepOutcome => {
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
}

/** The attempts of one step, as they go: the last one, how many, and what they filed. */
interface StepAttempts {
  request: ProcessInput["request"]
  n: number
  last: AttemptResult | null
  prefillDropped: boolean
  /** Every attempt's incidents, replayed ones too: each was published, so each is in the report. */
  readonly incidents: Array<Incident>
  /** What each replayed attempt streamed: billed by the provider though the reply left the history. */
  readonly replayedUsage: Array<Usage>
}

/** The step's request estimated: the caller's tally while the request is the one it gave, else stringified. */
const promptTokensOf = (input: ProcessInput, at: StepAttempts): number =>
  at.request === input.request && input.promptTokens !== undefined ? input.promptTokens() : requestTokens(at.request)

/** Runs attempts until one ends without a retryable failure; a failure the schedule may retry fails with AttemptFailed. */
const attemptUntilSettled = (deps: AttemptDeps, input: ProcessInput, at: StepAttempts): Effect.Effect<AttemptResult, AttemptFailed | SessionStoreError> =>
  Effect.gen(function* () {
    while (true) {
      // A retried attempt stays in the store, excluded, so nothing it wrote is sent or shown twice.
      const last = at.last
      if (last !== null && last.error !== null && last.reply.hasContent) {
        const replayed = last.reply.build()
        at.replayedUsage.push(streamedUsage(replayed, () => promptTokensOf(input, at)))
        yield* deps.store.putAssistant(input.sessionId, { ...replayed, error: last.error, excluded: "replayed" })
      }
      at.n += 1
      yield* deps.events.publish({ type: "step.started", step: input.step, attempt: at.n })
      const r = yield* runAttempt(deps, input, at.request, at.n, at.incidents)
      at.last = r
      if (r.trip !== null || r.error === null) return r
      // A backend that rejects assistant prefill: once, at once, without the trailing assistant message.
      if (!at.prefillDropped && !r.toolCalled && isPrefillRejection(r.error) && at.request.messages.at(-1)?.role === "assistant") {
        at.prefillDropped = true
        at.request = { ...at.request, messages: at.request.messages.slice(0, -1) }
        const announced = { phase: r.error.phase ?? "request", scope: "request", kind: "prefill", attempt: at.n, maxRetries: 1, delayMs: 0, message: r.error.message } as const
        yield* deps.events.publish({ type: "session.retry.attempt", ...announced })
        continue
      }
      return yield* Effect.fail(new AttemptFailed({ error: r.error }))
    }
  })

/** The step's error once retries are over: recorded on the last reply, announced when it is terminal. */
const giveUp = (deps: AttemptDeps, at: StepAttempts, { failure, stop }: RetryExhausted<AttemptFailed>): Effect.Effect<StepOutcome> =>
  Effect.gen(function* () {
    const recorded = giveUpError(failure.error, stop.reason, stop.attempt, { delayMs: stop.decision.serverDelayMs, budget: stop.budget })
    at.last!.reply.setError(recorded)
    if (at.last!.reply.finish === undefined) at.last!.reply.setFinish("error")
    if (stop.reason === "not-retryable") {
      yield* deps.events.publish({ type: "session.retry.terminal", kind: stop.decision.kind, message: failure.error.message, uiMessage: uiMessageOf(failure.error) })
    }
    return { type: "error", error: recorded } satisfies StepOutcome
  })

/** One step: attempts under the RetryCoordinator's policy, then the recorded reply. */
const processStep = (deps: AttemptDeps, retry: RetryCoordinator["Service"], input: ProcessInput): Effect.Effect<ProcessResult, SessionStoreError> =>
  Effect.gen(function* () {
    const at: StepAttempts = { request: input.request, n: 0, last: null, prefillDropped: false, incidents: [], replayedUsage: [] }
    let stepRetries = 0
    const nextStatusAttempt = input.nextStatusAttempt ?? (() => ++stepRetries)
    // The coordinator owns every budget: this step only says when a replay is unsafe and what to announce.
    const policy = retry.policy<AttemptFailed>({
      normalize: (f) => f.error,
      // Once a tool call arrived its tool has run: replaying the step could run it twice.
      replaySafe: () => !(at.last?.toolCalled ?? false),
      mainSession: deps.config.loop.role === "main",
      onAttempt: (info) =>
        Effect.gen(function* () {
          const { phase, scope, kind, attempt, maxRetries, delayMs } = info
          yield* deps.events.publish({ type: "session.retry.attempt", phase, scope, kind, attempt, maxRetries, delayMs, message: info.error.message })
          yield* deps.events.publish({ type: "session.status", status: "retry", attempt: nextStatusAttempt(), delayMs })
        })
    })
    const outcome: StepOutcome = yield* attemptUntilSettled(deps, input, at).pipe(
      // Only the attempt's own failure is retried; a store failure fails the step as itself.
      retryOnly(Filter.tagged<AttemptFailed | SessionStoreError>()("AttemptFailed"), policy),
      Effect.map(outcomeOf),
      Effect.catchTag("RetryExhausted", (exhausted: RetryExhausted<AttemptFailed>) => giveUp(deps, at, exhausted))
    )
    const message = at.last!.reply.build()
    yield* deps.store.putAssistant(input.sessionId, message)
    // Whole or cut short, a step without the server's output count is billed the estimate: many
    // local servers ignore `stream_options.include_usage`, and a budget that counts 0 never trips.
    const usage = streamedUsage(message, () => promptTokensOf(input, at))
    const tokens = tokensOfStep([...at.replayedUsage, usage])
    yield* deps.events.publish({ type: "step.finished", step: input.step, outcome: outcome.type, finish: message.finish ?? "none", tokens })
    return { outcome, message, usage, attempts: at.n, incidents: at.incidents, replayedUsage: at.replayedUsage } satisfies ProcessResult
  })

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
      const listening = events.listening ?? (() => true)
      const baseMonitors: ReadonlyArray<MonitorFactory> = config.repeat.enabled ? [repeatMonitor(repeatGuardOptionsOf(config.repeat))] : []
      const deps: AttemptDeps = {
        llm,
        store,
        events,
        config,
        toolDeps: { events, tools, gate, store, repairs: makeCallRepair(config) },
        progressOptions: { intervalMs: config.stream.progressIntervalMs, listening, now: () => Date.now() },
        baseMonitors
      }
      const process = Effect.fn("SessionProcessor.process")(function* (input: ProcessInput) {
        return yield* processStep(deps, retry, input)
      })
      /** Every event of the call names its session and the model that served it (a fallback model included). */
      const idsOf = (input: ProcessInput) => ({ sessionId: input.sessionId, provider: (input.llm ?? llm).providerId, modelId: (input.llm ?? llm).modelId })
      return SessionProcessor.of({ process: (input) => process(input).pipe(withEventIds(idsOf(input))) })
    })
  )
}
