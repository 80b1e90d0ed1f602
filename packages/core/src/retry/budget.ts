/**
 * Retry budgets (docs/retry.md): how many times, for how long, and how far apart each kind of failure
 * may be retried, plus the backoff formula.
 */
import type { RetryDecision } from "./decision.js"

export type RetryMode = "bounded" | "persistent"

export interface RetryBudget {
  /** `persistent` ignores `maxRetries` and keeps going until the deadline (if any) or interruption. */
  readonly mode: RetryMode
  readonly maxRetries: number
  /** Total time allowed from the first attempt; `null` = no deadline. */
  readonly deadlineMs: number | null
  readonly initialDelayMs: number
  readonly maxDelayMs: number
  /** The computed backoff is multiplied by a factor drawn from [1 − jitter, 1 + jitter). */
  readonly jitterRatio: number
}

export const RETRY_BUDGET_NAMES = [
  "request",
  "stream",
  "maxCandidate",
  "maxJudge",
  "network",
  "server",
  "unknown",
  "rateLimit"
] as const

export type RetryBudgetName = (typeof RETRY_BUDGET_NAMES)[number]

export type RetryBudgets = { readonly [K in RetryBudgetName]: RetryBudget }

const SECOND = 1_000
const MINUTE = 60 * SECOND

/** The largest `maxRetries` a config may set; also the (unused) count of the persistent network budget. */
export const MAX_RETRIES_LIMIT = 100

export const DEFAULT_RETRY_BUDGETS: RetryBudgets = {
  request: { mode: "bounded", maxRetries: 4, deadlineMs: 30 * SECOND, initialDelayMs: 200, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  stream: { mode: "bounded", maxRetries: 5, deadlineMs: 10 * MINUTE, initialDelayMs: 2 * SECOND, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  maxCandidate: { mode: "bounded", maxRetries: 3, deadlineMs: 3 * MINUTE, initialDelayMs: 500, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  maxJudge: { mode: "bounded", maxRetries: 3, deadlineMs: 3 * MINUTE, initialDelayMs: 500, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  network: { mode: "persistent", maxRetries: MAX_RETRIES_LIMIT, deadlineMs: null, initialDelayMs: 5 * SECOND, maxDelayMs: 60 * SECOND, jitterRatio: 0 },
  server: { mode: "bounded", maxRetries: 8, deadlineMs: 15 * MINUTE, initialDelayMs: 2 * SECOND, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  unknown: { mode: "bounded", maxRetries: 8, deadlineMs: 15 * MINUTE, initialDelayMs: 2 * SECOND, maxDelayMs: 30 * SECOND, jitterRatio: 0.1 },
  rateLimit: { mode: "bounded", maxRetries: 5, deadlineMs: 15 * MINUTE, initialDelayMs: 2 * SECOND, maxDelayMs: 5 * MINUTE, jitterRatio: 0.1 }
}

/**
 * Which budget governs a decision, in the order docs/retry.md lists them. The request phase always uses `request` (even
 * for a network error); in the stream phase a network error is persistent even inside Max mode.
 */
export const budgetNameFor = (decision: Pick<RetryDecision, "phase" | "scope" | "kind">): RetryBudgetName => {
  if (decision.phase === "request") return "request"
  if (decision.kind === "network") return "network"
  if (decision.scope === "max-candidate") return "maxCandidate"
  if (decision.scope === "max-judge") return "maxJudge"
  if (decision.kind === "server") return "server"
  if (decision.kind === "rate_limit") return "rateLimit"
  if (decision.kind === "unknown") return "unknown"
  return "stream"
}

/** The retry budget a decision draws from, by phase, scope and kind. */
export const budgetFor = (
  decision: Pick<RetryDecision, "phase" | "scope" | "kind">,
  budgets: RetryBudgets = DEFAULT_RETRY_BUDGETS
): RetryBudget => budgets[budgetNameFor(decision)]

/** A server hint is never followed more eagerly than this. */
export const MIN_HINT_DELAY_MS = 100

/** Beyond 2^52 the doubling is far past any max delay; stopping there avoids Infinity × 0. */
const MAX_EXPONENT = 52

/**
 * Delay before retry number `attempt` (1-based). A server hint wins, clamped to
 * [100 ms, maxDelayMs]; otherwise min(maxDelayMs, initialDelayMs × 2^(attempt−1)) × (1 ± jitter).
 * `random` returns a number in [0, 1).
 */
export const delayFor = (
  budget: RetryBudget,
  attempt: number,
  hintMs?: number,
  random: () => number = Math.random
): number => {
  if (hintMs !== undefined && Number.isFinite(hintMs)) {
    return Math.min(Math.max(hintMs, MIN_HINT_DELAY_MS), budget.maxDelayMs)
  }
  const exponent = Math.min(Math.max(Math.floor(attempt) - 1, 0), MAX_EXPONENT)
  const base = Math.min(budget.maxDelayMs, budget.initialDelayMs * 2 ** exponent)
  const r = Math.min(Math.max(random(), 0), 1)
  const factor = 1 + budget.jitterRatio * (2 * r - 1)
  return Math.max(0, Math.round(base * factor))
}
