/**
 * `nextRetry`: given how many retries happened so far, whether replaying is still safe and how much
 * time has passed, either the next delay or the reason to stop. Serializable state so the
 * SessionProcessor can keep one counter across stream-phase replays.
 */
import { budgetFor, delayFor, type RetryBudget, type RetryBudgets } from "./budget.js"
import type { RetryDecision } from "./decision.js"

export interface RetryState {
  /** Retries already made (0 before the first). The next retry is number `attempt + 1`. */
  readonly attempt: number
  /** False once a replay could repeat side effects (a tool-call event arrived in the stream). */
  readonly replaySafe: boolean
}

export const initialRetryState: RetryState = { attempt: 0, replaySafe: true }

export type RetryStopReason = "not-retryable" | "unsafe-replay" | "budget-exhausted" | "deadline"

export type RetryOutcome =
  | { readonly retry: true; readonly delayMs: number; readonly attempt: number }
  | { readonly retry: false; readonly reason: RetryStopReason }

/**
 * Stop when the error is not retryable, replay is unsafe, a bounded budget's count is used, or
 * the elapsed time — or the elapsed time plus the next wait, or the wait the server asked for when
 * longer — would pass the deadline.
 * `elapsedMs` is measured from the first attempt of the operation.
 */
export const nextRetry = (
  state: RetryState,
  decision: RetryDecision,
  budget: RetryBudget,
  elapsedMs: number,
  random: () => number = Math.random
): RetryOutcome => {
  if (!decision.retryable) return { retry: false, reason: "not-retryable" }
  if (!state.replaySafe) return { retry: false, reason: "unsafe-replay" }
  if (budget.mode === "bounded" && state.attempt >= budget.maxRetries) return { retry: false, reason: "budget-exhausted" }
  const attempt = state.attempt + 1
  const delayMs = delayFor(budget, attempt, decision.serverDelayMs, random)
  // The deadline is held against the wait the server asked for, not the shorter one the budget
  // clamps it to: asked again sooner, it would answer the same. (Held against the clamped wait, a
  // hint past the request budget's 30 s was retried only when the first attempt had failed within
  // its first millisecond.)
  const waitMs = Math.max(delayMs, decision.serverDelayMs ?? 0)
  if (budget.deadlineMs !== null && (elapsedMs >= budget.deadlineMs || elapsedMs + waitMs > budget.deadlineMs)) {
    return { retry: false, reason: "deadline" }
  }
  return { retry: true, delayMs, attempt }
}

/** `nextRetry` with the budget chosen from a budget set (in `budgetFor`'s order). */
export const planRetry = (
  state: RetryState,
  decision: RetryDecision,
  budgets: RetryBudgets,
  elapsedMs: number,
  random: () => number = Math.random
): RetryOutcome => nextRetry(state, decision, budgetFor(decision, budgets), elapsedMs, random)

/** The state after a retry was granted. */
export const recordRetry = (state: RetryState, outcome: Extract<RetryOutcome, { retry: true }>): RetryState => ({
  ...state,
  attempt: outcome.attempt
})

/** The state once a tool-call event arrived: from now on an error ends the step. */
export const markReplayUnsafe = (state: RetryState): RetryState => ({ ...state, replaySafe: false })
