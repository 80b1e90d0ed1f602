import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { budgetNameFor, DEFAULT_RETRY_BUDGETS, delayFor, MIN_HINT_DELAY_MS, type RetryBudget } from "./budget.js"
import type { RetryKind, RetryScope } from "./decision.js"

const budget = (b: Partial<RetryBudget> = {}): RetryBudget => ({
  mode: "bounded",
  maxRetries: 4,
  deadlineMs: 30_000,
  initialDelayMs: 200,
  maxDelayMs: 30_000,
  jitterRatio: 0,
  ...b
})

describe("DEFAULT_RETRY_BUDGETS (the table in docs/retry.md)", () => {
  const rows: ReadonlyArray<[keyof typeof DEFAULT_RETRY_BUDGETS, number | "persistent", number | null, number, number, number]> = [
    ["request", 4, 30_000, 200, 30_000, 0.1],
    ["stream", 5, 600_000, 2_000, 30_000, 0.1],
    ["maxCandidate", 3, 180_000, 500, 30_000, 0.1],
    ["maxJudge", 3, 180_000, 500, 30_000, 0.1],
    ["network", "persistent", null, 5_000, 60_000, 0],
    ["server", 8, 900_000, 2_000, 30_000, 0.1],
    ["unknown", 8, 900_000, 2_000, 30_000, 0.1],
    ["rateLimit", 5, 900_000, 2_000, 300_000, 0.1]
  ]
  test.each(rows)("%s", (name, retries, deadline, initial, max, jitter) => {
    const b = DEFAULT_RETRY_BUDGETS[name]
    if (retries === "persistent") expect(b.mode).toBe("persistent")
    else expect({ mode: b.mode, maxRetries: b.maxRetries }).toEqual({ mode: "bounded", maxRetries: retries })
    expect([b.deadlineMs, b.initialDelayMs, b.maxDelayMs, b.jitterRatio]).toEqual([deadline, initial, max, jitter])
  })
})

describe("budgetNameFor (request phase first)", () => {
  const d = (phase: "request" | "stream", kind: RetryKind, scope: RetryScope = "live-step") => ({ phase, kind, scope })
  test("by default the request phase uses the request budget, even for network errors", () => {
    expect(budgetNameFor(d("request", "network", "request"))).toBe("request")
    expect(budgetNameFor(d("request", "rate_limit", "max-judge"))).toBe("request")
  })
  test("a kind's budget marked everyPhase (a config set its limit) governs its kind in the request phase", () => {
    const budgets = { ...DEFAULT_RETRY_BUDGETS, rateLimit: { ...DEFAULT_RETRY_BUDGETS.rateLimit, everyPhase: true } }
    expect(budgetNameFor(d("request", "rate_limit", "request"), budgets)).toBe("rateLimit")
    expect(budgetNameFor(d("request", "server", "request"), budgets)).toBe("request")
    expect(budgetNameFor(d("request", "stream", "request"), budgets)).toBe("request")
  })
  test("network beats Max-mode scopes in the stream phase", () => {
    expect(budgetNameFor(d("stream", "network", "max-candidate"))).toBe("network")
  })
  test("Max-mode scopes beat server/rate-limit kinds", () => {
    expect(budgetNameFor(d("stream", "server", "max-candidate"))).toBe("maxCandidate")
    expect(budgetNameFor(d("stream", "rate_limit", "max-judge"))).toBe("maxJudge")
  })
  test("then kind, else stream", () => {
    expect(budgetNameFor(d("stream", "server"))).toBe("server")
    expect(budgetNameFor(d("stream", "rate_limit"))).toBe("rateLimit")
    expect(budgetNameFor(d("stream", "unknown"))).toBe("unknown")
    expect(budgetNameFor(d("stream", "stream"))).toBe("stream")
    expect(budgetNameFor(d("stream", "terminal"))).toBe("stream")
  })
})

describe("delayFor", () => {
  test("exponential growth from the initial delay, capped at max", () => {
    const b = budget({ initialDelayMs: 200, maxDelayMs: 1_000 })
    expect([1, 2, 3, 4, 5, 6].map((a) => delayFor(b, a))).toEqual([200, 400, 800, 1_000, 1_000, 1_000])
  })

  test("jitter multiplies by 1 ± ratio at the extremes of random", () => {
    const b = budget({ initialDelayMs: 1_000, jitterRatio: 0.1 })
    expect(delayFor(b, 1, undefined, () => 0)).toBe(900)
    expect(delayFor(b, 1, undefined, () => 0.5)).toBe(1_000)
    expect(delayFor(b, 1, undefined, () => 0.999999)).toBe(1_100)
  })

  test("jitter stays within bounds for any attempt and random (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        (attempt, r, jitter, initial, max) => {
          const b = budget({ initialDelayMs: initial, maxDelayMs: max, jitterRatio: jitter })
          const base = Math.min(max, initial * 2 ** Math.min(attempt - 1, 52))
          const d = delayFor(b, attempt, undefined, () => r)
          return Number.isFinite(d) && d >= Math.floor(base * (1 - jitter)) && d <= Math.ceil(base * (1 + jitter))
        }
      )
    )
  })

  test("a server hint wins and is clamped to [100 ms, max]", () => {
    const b = budget({ maxDelayMs: 30_000, jitterRatio: 0.5 })
    expect(delayFor(b, 3, 7_000, () => 0)).toBe(7_000)
    expect(delayFor(b, 1, 5)).toBe(MIN_HINT_DELAY_MS)
    expect(delayFor(b, 1, 0)).toBe(MIN_HINT_DELAY_MS)
    expect(delayFor(b, 1, 600_000)).toBe(30_000)
  })

  test("huge attempts and a zero initial delay stay finite", () => {
    expect(delayFor(budget({ maxDelayMs: 60_000 }), 10_000)).toBe(60_000)
    expect(delayFor(budget({ initialDelayMs: 0 }), 10_000)).toBe(0)
  })
})
