import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { NormalizedError } from "../model/stream.js"
import { budgetFor, DEFAULT_RETRY_BUDGETS, RETRY_BUDGET_NAMES, type RetryBudget, type RetryBudgets } from "./budget.js"
import { mergeRetryConfig, type RetryConfig } from "./config.js"
import { decide, type RetryDecision } from "./decision.js"
import { initialRetryState, markReplayUnsafe, nextRetry, planRetry, recordRetry, type RetryState } from "./next.js"

const retryable: RetryDecision = { retryable: true, phase: "stream", scope: "live-step", kind: "server", reason: "HTTP 500" }
const bounded = (b: Partial<RetryBudget> = {}): RetryBudget => ({
  mode: "bounded",
  maxRetries: 3,
  deadlineMs: 10_000,
  initialDelayMs: 1_000,
  maxDelayMs: 8_000,
  jitterRatio: 0,
  ...b
})
const at = (attempt: number, replaySafe = true): RetryState => ({ attempt, replaySafe })

describe("nextRetry: stop conditions", () => {
  test("a non-retryable decision stops first", () => {
    const terminal: RetryDecision = { ...retryable, retryable: false, kind: "terminal" }
    expect(nextRetry(at(0, false), terminal, bounded(), 0)).toEqual({ retry: false, reason: "not-retryable" })
  })

  test("an unsafe replay stops even when the error is retryable", () => {
    expect(nextRetry(markReplayUnsafe(initialRetryState), retryable, bounded(), 0)).toEqual({ retry: false, reason: "unsafe-replay" })
  })

  test("a bounded budget allows exactly maxRetries retries", () => {
    const b = bounded({ maxRetries: 3, deadlineMs: null })
    let state = initialRetryState
    const delays: Array<number> = []
    for (;;) {
      const out = nextRetry(state, retryable, b, 0)
      if (!out.retry) {
        expect(out.reason).toBe("budget-exhausted")
        break
      }
      delays.push(out.delayMs)
      state = recordRetry(state, out)
    }
    expect(delays).toEqual([1_000, 2_000, 4_000])
    expect(state.attempt).toBe(3)
  })

  test("persistent mode has no count limit", () => {
    const b = bounded({ mode: "persistent", maxRetries: 0, deadlineMs: null })
    expect(nextRetry(at(10_000), retryable, b, 1e9)).toEqual({ retry: true, delayMs: 8_000, attempt: 10_001 })
  })

  test("deadline: elapsed already past, or elapsed plus the next wait past it", () => {
    const b = bounded({ deadlineMs: 10_000, maxRetries: 100 })
    expect(nextRetry(at(0), retryable, b, 10_000)).toEqual({ retry: false, reason: "deadline" })
    expect(nextRetry(at(1), retryable, b, 8_001)).toEqual({ retry: false, reason: "deadline" }) // wait 2 000
    expect(nextRetry(at(1), retryable, b, 8_000)).toEqual({ retry: true, delayMs: 2_000, attempt: 2 })
  })

  test("a server hint past the deadline stops at once, however soon the attempt failed; one within it is clamped and waited", () => {
    const b = bounded({ deadlineMs: 30_000, maxDelayMs: 30_000, maxRetries: 4 })
    for (const elapsed of [0, 1, 25]) expect(nextRetry(at(0), { ...retryable, serverDelayMs: 86_400_000 }, b, elapsed)).toEqual({ retry: false, reason: "deadline" })
    const longer = bounded({ deadlineMs: 900_000, maxDelayMs: 30_000, maxRetries: 4 })
    expect(nextRetry(at(0), { ...retryable, serverDelayMs: 120_000 }, longer, 0)).toEqual({ retry: true, delayMs: 30_000, attempt: 1 })
  })

  test("a server hint sets the delay", () => {
    expect(nextRetry(at(0), { ...retryable, serverDelayMs: 3_000 }, bounded(), 0)).toEqual({ retry: true, delayMs: 3_000, attempt: 1 })
  })

  test("planRetry picks the budget by decision", () => {
    const d = decide({ message: "x", code: "ECONNRESET" }, { phase: "stream" })
    const out = planRetry(at(500), d, DEFAULT_RETRY_BUDGETS, 1e9, () => 0.5)
    expect(out).toEqual({ retry: true, delayMs: 60_000, attempt: 501 })
  })
})

describe("nextRetry: property", () => {
  const errorArb: fc.Arbitrary<NormalizedError> = fc.oneof(
    fc.constantFrom(400, 401, 404, 408, 409, 425, 429, 500, 502, 503, 529).map((status) => ({ message: "http", status, isRetryable: status >= 500 || status === 429 })),
    fc.constantFrom("ECONNRESET", "ETIMEDOUT", "stream_read_error", "too_many_requests", "RESOURCE_EXHAUSTED", "insufficient_quota").map((code) => ({ message: "c", code })),
    fc.record({ message: fc.string(), isRetryable: fc.boolean() }),
    fc.record({ message: fc.constant("x"), status: fc.constant(429), headers: fc.record({ "retry-after": fc.integer({ min: 0, max: 900 }).map(String) }) })
  )
  const budgetConfigArb = fc.record(
    {
      mode: fc.constantFrom("bounded" as const, "persistent" as const),
      maxRetries: fc.integer({ min: 0, max: 12 }),
      deadlineMs: fc.integer({ min: 0, max: 120_000 }),
      initialDelayMs: fc.integer({ min: 0, max: 5_000 }),
      maxDelayMs: fc.integer({ min: 0, max: 60_000 }),
      jitterRatio: fc.double({ min: 0, max: 1, noNaN: true })
    },
    { requiredKeys: [] }
  )
  const configArb: fc.Arbitrary<RetryConfig> = fc.dictionary(fc.constantFrom(...RETRY_BUDGET_NAMES), budgetConfigArb, { maxKeys: 8 })

  test("granted retries never exceed the chosen bounded budget, waits never pass its deadline", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(errorArb, fc.constantFrom("request" as const, "stream" as const), fc.integer({ min: 0, max: 5_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })), { minLength: 1, maxLength: 60 }),
        configArb,
        (steps, config) => {
          const budgets: RetryBudgets = mergeRetryConfig(DEFAULT_RETRY_BUDGETS, config)
          let state = initialRetryState
          let elapsed = 0
          for (const [error, phase, workMs, r] of steps) {
            elapsed += workMs // the attempt itself takes time
            const decision = decide(error, { phase, now: 0 })
            const budget = budgetFor(decision, budgets)
            const out = planRetry(state, decision, budgets, elapsed, () => r)
            if (!out.retry) {
              if (!decision.retryable) expect(out.reason).toBe("not-retryable")
              break
            }
            expect(decision.retryable).toBe(true)
            if (budget.mode === "bounded") expect(out.attempt).toBeLessThanOrEqual(budget.maxRetries)
            elapsed += out.delayMs
            if (budget.deadlineMs !== null) expect(elapsed).toBeLessThanOrEqual(budget.deadlineMs)
            state = recordRetry(state, out)
          }
        }
      ),
      { numRuns: 500 }
    )
  })
})
