/**
 * The retry coordinator's policy as an Effect `Schedule`: its input is the failure, its delay
 * comes from core `delayFor` (through `nextRetry`), and it stops where core `nextRetry` says so.
 * The stop verdict goes to `onStop` and is the schedule's final output.
 */
import { type NormalizedError } from "@loopguard/core/model"
import {
  budgetNameFor,
  decide,
  initialRetryState,
  isOverloaded,
  nextRetry,
  recordRetry,
  type RetryBudgetName,
  type RetryBudgets,
  type RetryDecision,
  type RetryKind,
  type RetryPhase,
  type RetryScope,
  type RetryState,
  type RetryStopReason
} from "@loopguard/core/retry"
import { Cause, Clock, Duration, Effect, Random, Schedule } from "effect"

/** One schedule step: a granted retry, or the reason to stop (the schedule's last output). */
export type RetryStep =
  | {
      readonly retry: true
      /** Counted retries of this phase so far, this one included (a silent overload retry does not count). */
      readonly attempt: number
      readonly delayMs: number
      readonly decision: RetryDecision
      readonly budget: RetryBudgetName
      /** An immediate `server_is_overloaded` retry: not counted, not announced. */
      readonly silent: boolean
    }
  | {
      readonly retry: false
      readonly reason: RetryStopReason
      /** Retries made before stopping. */
      readonly attempt: number
      readonly decision: RetryDecision
      readonly budget: RetryBudgetName
    }

/** Why a schedule gave up (its last step). */
export type RetryStop = Extract<RetryStep, { readonly retry: false }>

/** What `onAttempt` hears before each (non-silent) wait: the `session.retry.attempt` fields. */
export interface RetryAttemptInfo {
  readonly phase: RetryPhase
  readonly scope: RetryScope
  readonly kind: RetryKind
  readonly attempt: number
  readonly delayMs: number
  /** `null` for a persistent budget. */
  readonly maxRetries: number | null
  readonly error: NormalizedError
}

export interface RetryScheduleOptions<E> {
  readonly budgets: RetryBudgets
  readonly normalize: (error: E) => NormalizedError
  /** Consulted before every retry; once false the schedule stops with `unsafe-replay`. */
  readonly replaySafe?: () => boolean
  /** HTTP statuses this provider's adapter retries as server errors (as in MiMo Code: 404 for some). */
  readonly retryableStatuses?: ReadonlyArray<number>
  /** Immediate, uncounted retries of OpenAI `server_is_overloaded` (main session: 3). Default 0. */
  readonly overloadedImmediateRetries?: number
  readonly onAttempt?: (info: RetryAttemptInfo) => Effect.Effect<void>
  /** Called once when the schedule gives up, with why and the last failure (the retried effect then fails with it). */
  readonly onStop?: (stop: RetryStop, error: NormalizedError) => Effect.Effect<void>
}

/** The retry `Schedule`: the failed attempt's error is the input, its kind picks the budget and the delay. */
export const makeRetrySchedule = <E>(options: RetryScheduleOptions<E>): Schedule.Schedule<RetryStep, E> =>
  Schedule.fromStep(
    Effect.gen(function* () {
      // Two retry sites with their own counts and deadlines (as in MiMo Code): request-phase retries belong
      // to one model call, so every stream-phase replay (a new call) starts them afresh; stream-phase
      // replays count over the whole step, from before its first attempt.
      const startedAt = yield* Clock.currentTimeMillis
      const counts: Record<RetryPhase, RetryState> = { request: initialRetryState, stream: initialRetryState }
      const since: Record<RetryPhase, number> = { request: startedAt, stream: startedAt }
      let overloadedUsed = 0
      return (now: number, input: E) =>
        Effect.gen(function* () {
          const error = options.normalize(input)
          // Each failure's own phase picks request or stream budgets: one schedule spans the step.
          const decision = decide(error, { now, ...(options.retryableStatuses !== undefined ? { retryableStatuses: options.retryableStatuses } : {}) })
          const budget = budgetNameFor(decision)
          const replaySafe = options.replaySafe?.() ?? true
          if (
            decision.retryable &&
            replaySafe &&
            overloadedUsed < (options.overloadedImmediateRetries ?? 0) &&
            isOverloaded(error)
          ) {
            overloadedUsed += 1
            const step: RetryStep = { retry: true, attempt: counts[decision.phase].attempt, delayMs: 0, decision, budget, silent: true }
            return [step, Duration.zero] as [RetryStep, Duration.Duration]
          }
          const r = yield* Random.next
          const phase: RetryPhase = decision.phase
          const state = counts[phase]
          const outcome = nextRetry({ ...state, replaySafe }, decision, options.budgets[budget], now - since[phase], () => r)
          if (!outcome.retry) {
            const stop: RetryStop = { retry: false, reason: outcome.reason, attempt: state.attempt, decision, budget }
            if (options.onStop !== undefined) yield* options.onStop(stop, error)
            return yield* Cause.done(stop as RetryStep)
          }
          counts[phase] = recordRetry(state, outcome)
          if (phase === "stream") {
            counts.request = initialRetryState
            since.request = now
          }
          const b = options.budgets[budget]
          if (options.onAttempt !== undefined) {
            yield* options.onAttempt({
              phase: decision.phase,
              scope: decision.scope,
              kind: decision.kind,
              attempt: outcome.attempt,
              delayMs: outcome.delayMs,
              maxRetries: b.mode === "persistent" ? null : b.maxRetries,
              error
            })
          }
          const step: RetryStep = { retry: true, attempt: outcome.attempt, delayMs: outcome.delayMs, decision, budget, silent: false }
          return [step, Duration.millis(outcome.delayMs)] as [RetryStep, Duration.Duration]
        })
    })
  )
