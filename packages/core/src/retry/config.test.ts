import { describe, expect, test } from "bun:test"
import { DEFAULT_RETRY_BUDGETS, RETRY_BUDGET_NAMES } from "./budget.js"
import { mergeRetryConfig, resolveRetryBudgets } from "./config.js"

describe("mergeRetryConfig", () => {
  test("no overrides gives the defaults", () => {
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS)).toEqual(DEFAULT_RETRY_BUDGETS)
  })

  test("top and provider sections merge field by field", () => {
    const merged = mergeRetryConfig(
      DEFAULT_RETRY_BUDGETS,
      { rateLimit: { maxRetries: 8, jitterRatio: 0.2 } },
      { rateLimit: { initialDelayMs: 100, jitterRatio: 0 } }
    )
    expect(merged.rateLimit).toEqual({ ...DEFAULT_RETRY_BUDGETS.rateLimit, maxRetries: 8, initialDelayMs: 100, jitterRatio: 0, everyPhase: true })
    for (const name of RETRY_BUDGET_NAMES.filter((n) => n !== "rateLimit")) expect(merged[name]).toEqual(DEFAULT_RETRY_BUDGETS[name])
  })

  test("noDeadline and deadlineMs: the later layer's form wins", () => {
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { server: { deadlineMs: 60_000 } }, { server: { noDeadline: true } }).server.deadlineMs).toBeNull()
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { network: { noDeadline: true } }, { network: { deadlineMs: 5_000 } }).network.deadlineMs).toBe(5_000)
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { server: { noDeadline: true } }, { server: { maxRetries: 2 } }).server).toMatchObject({ deadlineMs: null, maxRetries: 2 })
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { server: { noDeadline: false } }).server.deadlineMs).toBe(DEFAULT_RETRY_BUDGETS.server.deadlineMs)
  })

  test("a kind's budget governs the request phase too once a limit of its own is set, not for a delay alone", () => {
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { rateLimit: { maxRetries: 1 } }).rateLimit.everyPhase).toBe(true)
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, {}, { network: { mode: "bounded" } }).network.everyPhase).toBe(true)
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { server: { initialDelayMs: 5 } }).server.everyPhase).toBeUndefined()
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { request: { maxRetries: 1 } }).request.everyPhase).toBeUndefined()
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { jitterRatio: 0 }).server.everyPhase).toBeUndefined()
  })

  test("mode can be switched", () => {
    expect(mergeRetryConfig(DEFAULT_RETRY_BUDGETS, { network: { mode: "bounded", maxRetries: 6 } }).network).toMatchObject({ mode: "bounded", maxRetries: 6 })
  })
})

describe("section-wide jitterRatio and retryableStatuses", () => {
  test("jitterRatio fills every budget that sets none; a budget's own value and a provider's section win", () => {
    const r = resolveRetryBudgets({ retry: { jitterRatio: 0, server: { jitterRatio: 0.3 } }, provider: { p: { retry: { jitterRatio: 0.05 } } } }, "p")
    expect(r.budgets.request.jitterRatio).toBe(0.05)
    const top = resolveRetryBudgets({ retry: { jitterRatio: 0, server: { jitterRatio: 0.3 } } })
    expect([top.budgets.request.jitterRatio, top.budgets.server.jitterRatio, top.budgets.stream.jitterRatio]).toEqual([0, 0.3, 0])
  })
  test("retryableStatuses: the provider's list replaces the top-level one", () => {
    const r = resolveRetryBudgets({ retry: { retryableStatuses: [409] }, provider: { p: { retry: { retryableStatuses: [404] } } } }, "p")
    expect(r.retryableStatuses).toEqual([404])
    const top = resolveRetryBudgets({ retry: { retryableStatuses: [409] } }, "q")
    expect(top.retryableStatuses).toEqual([409])
  })
})

describe("overloadedImmediateRetries", () => {
  test("resolved: provider over top over the default of 3", () => {
    const r1 = resolveRetryBudgets({})
    expect(r1.overloadedImmediateRetries).toBe(3)
    const r2 = resolveRetryBudgets({ retry: { overloadedImmediateRetries: 1 }, provider: { p: { retry: { overloadedImmediateRetries: 0 } } } }, "p")
    expect(r2.overloadedImmediateRetries).toBe(0)
    const r3 = resolveRetryBudgets({ retry: { overloadedImmediateRetries: 1 } }, "p")
    expect(r3.overloadedImmediateRetries).toBe(1)
  })
})

describe("resolveRetryBudgets", () => {
  const root = {
    retry: { rateLimit: { maxRetries: 8 } },
    provider: { openai: { retry: { rateLimit: { maxDelayMs: 60_000 } } }, other: { retry: { server: { maxRetries: 1 } } } }
  }

  test("merges the top section with this provider's section only", () => {
    const r = resolveRetryBudgets(root, "openai")
    expect(r.budgets.rateLimit).toMatchObject({ maxRetries: 8, maxDelayMs: 60_000 })
    expect(r.budgets.server).toEqual(DEFAULT_RETRY_BUDGETS.server)
  })

  test("no provider id uses the top section alone", () => {
    const r = resolveRetryBudgets(root)
    expect(r.budgets.rateLimit.maxDelayMs).toBe(DEFAULT_RETRY_BUDGETS.rateLimit.maxDelayMs)
  })
})
