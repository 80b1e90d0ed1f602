/**
 * `Effect.retry` for a step whose effect can fail in two ways: with its own failure, which a
 * retry might fix, and with something else (a store error) that no retry should touch. Only the
 * first kind reaches the retry policy; the other fails at once as itself, through the typed error
 * channel. When the policy gives up, the step fails with `RetryExhausted`, which carries the last
 * failure and why the policy stopped as values (no `onStop` hook writing into a variable).
 */
import { Data, Effect, type Filter, Result, Schedule } from "effect"
import type { RetryStep, RetryStop } from "./schedule.js"

/** The retry policy gave up: the last failure it saw, and why it stopped. */
export class RetryExhausted<F> extends Data.TaggedError("RetryExhausted")<{ readonly failure: F; readonly stop: RetryStop }> {}

/**
 * Why a policy stopped, from its last step. The coordinator's schedule always ends on a stop; a
 * policy composed with a plain limit (`Schedule.upTo`, `Schedule.recurs`) ends on its last grant,
 * and running out of such a limit is a budget running out.
 */
export const stopOf = (last: RetryStep): RetryStop =>
  last.retry ? { retry: false, reason: "budget-exhausted", attempt: last.attempt, decision: last.decision, budget: last.budget } : last

/** `policy` over every failure: the ones `retried` passes go to it; any other ends the retries by failing as itself. */
export const onlyRetried = <I, F, E>(retried: Filter.Filter<I, F, E>, policy: Schedule.Schedule<RetryStep, F>): Schedule.Schedule<RetryStep, I, E> =>
  Schedule.fromStep(
    Effect.map(Schedule.toStep(policy), (step) => (now: number, input: I) => {
      const picked = retried(input)
      return Result.isSuccess(picked) ? step(now, picked.success) : Effect.fail(picked.failure)
    })
  )

/**
 * Retries `self` under `policy` on the failures `retried` passes only (e.g.
 * `Filter.tagged<E>()("AttemptFailed")`). Any other failure fails the effect at once, unseen by
 * the policy; when the policy gives up, the effect fails with `RetryExhausted` (the last failure
 * and the stop).
 */
export const retryOnly =
  <I, F, E>(retried: Filter.Filter<I, F, E>, policy: Schedule.Schedule<RetryStep, F>) =>
  <A, R>(self: Effect.Effect<A, I, R>): Effect.Effect<A, E | RetryExhausted<F>, R> =>
    Effect.retryOrElse(self, onlyRetried(retried, policy), (failure: I, last: RetryStep): Effect.Effect<never, E | RetryExhausted<F>> => {
      // Only a passed failure ends the policy with a last step; the other branch keeps the types total.
      const picked = retried(failure)
      return Result.isSuccess(picked) ? Effect.fail(new RetryExhausted({ failure: picked.success, stop: stopOf(last) })) : Effect.fail(picked.failure)
    })
