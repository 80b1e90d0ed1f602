/**
 * The retry verdict for one failed attempt of a step, shared by both phases so the attempt
 * number runs on across a request-phase retry and a stream-phase replay. Pure: the processor
 * does the waiting and the bookkeeping.
 */
import {
  budgetFor,
  decide,
  isOverloaded,
  isPrefillRejection,
  nextRetry,
  type NormalizedError,
  type RetryBudgets,
  type RetryKind,
  type RetryState
} from "@loopguard/core"

export interface StepRetryState {
  readonly retry: RetryState
  /** Silent immediate retries used for OpenAI `server_is_overloaded`. */
  readonly overloaded: number
  /** The one retry without a trailing assistant message was used. */
  readonly prefillDropped: boolean
}

export const initialStepRetry: StepRetryState = { retry: { attempt: 0, replaySafe: true }, overloaded: 0, prefillDropped: false }

export interface StepRetryContext {
  readonly phase: "request" | "stream"
  readonly replaySafe: boolean
  readonly elapsedMs: number
  readonly lastMessageIsAssistant: boolean
  readonly mainSession: boolean
  readonly overloadedImmediateRetries: number
  readonly random?: () => number
}

export type StepRetryVerdict =
  | {
      readonly retry: true
      readonly state: StepRetryState
      readonly delayMs: number
      readonly attempt: number
      readonly kind: RetryKind
      readonly scope: string
      readonly maxRetries: number | null
      /** Not shown to the user (OpenAI overloaded fast path). */
      readonly silent: boolean
      readonly dropTrailingAssistant: boolean
    }
  | {
      readonly retry: false
      readonly kind: RetryKind
      readonly reason: string
      readonly terminal: boolean
      /** Counted retries this step already made. */
      readonly retries: number
    }

export const planStepRetry = (
  budgets: RetryBudgets,
  state: StepRetryState,
  error: NormalizedError,
  ctx: StepRetryContext
): StepRetryVerdict => {
  const decision = decide(error, { phase: ctx.phase })
  const replaySafe = ctx.replaySafe && state.retry.replaySafe
  if (replaySafe && isPrefillRejection(error) && ctx.lastMessageIsAssistant && !state.prefillDropped) {
    return {
      retry: true,
      state: { ...state, prefillDropped: true, retry: { ...state.retry, attempt: state.retry.attempt + 1 } },
      delayMs: 0,
      attempt: state.retry.attempt + 1,
      kind: decision.kind,
      scope: decision.scope,
      maxRetries: 1,
      silent: false,
      dropTrailingAssistant: true
    }
  }
  if (replaySafe && decision.retryable && ctx.mainSession && isOverloaded(error) && state.overloaded < ctx.overloadedImmediateRetries) {
    return {
      retry: true,
      state: { ...state, overloaded: state.overloaded + 1 },
      delayMs: 0,
      attempt: state.retry.attempt + 1,
      kind: decision.kind,
      scope: decision.scope,
      maxRetries: ctx.overloadedImmediateRetries,
      silent: true,
      dropTrailingAssistant: false
    }
  }
  const budget = budgetFor(decision, budgets)
  const outcome = nextRetry({ ...state.retry, replaySafe }, decision, budget, ctx.elapsedMs, ctx.random)
  if (!outcome.retry) {
    return {
      retry: false,
      kind: decision.kind,
      reason: outcome.reason === "not-retryable" ? decision.reason : outcome.reason,
      terminal: outcome.reason === "not-retryable",
      retries: state.retry.attempt
    }
  }
  return {
    retry: true,
    state: { ...state, retry: { attempt: outcome.attempt, replaySafe } },
    delayMs: outcome.delayMs,
    attempt: outcome.attempt,
    kind: decision.kind,
    scope: decision.scope,
    maxRetries: budget.mode === "persistent" ? null : budget.maxRetries,
    silent: false,
    dropTrailingAssistant: false
  }
}

/**
 * The error a step records when it gives up because the budget or the deadline ran out. The
 * provider's own message ("upstream crashed") does not say that it was an HTTP 500 nor that it
 * was retried, and it is what the run report shows; so both are appended. Every other field is
 * kept, and other stops (terminal, unsafe replay) record the error unchanged.
 */
export const giveUpError = (error: NormalizedError, verdict: Extract<StepRetryVerdict, { retry: false }>): NormalizedError => {
  if (verdict.reason !== "budget-exhausted" && verdict.reason !== "deadline") return error
  const status = error.status !== undefined && (error.status < 200 || error.status >= 300) ? `HTTP ${error.status}; ` : ""
  const retries = `${verdict.retries} ${verdict.retries === 1 ? "retry" : "retries"}`
  return { ...error, message: `${error.message} (${status}gave up after ${retries}: ${verdict.reason})` }
}
