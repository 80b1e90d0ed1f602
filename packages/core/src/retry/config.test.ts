import { describe, expect, test } from "bun:test"
import { DEFAULT_RETRY_BUDGETS, RETRY_BUDGET_NAMES } from "./budget.js"
import { mergeRetryConfig, resolveRetryBudgets, validateRetryConfig } from "./config.js"

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

describe("validateRetryConfig", () => {
  test("a valid section passes through unchanged", () => {
    const input = { server: { mode: "bounded", maxRetries: 0, deadlineMs: 0, initialDelayMs: 0, maxDelayMs: 0, jitterRatio: 1 }, network: { noDeadline: true, maxRetries: 100 } }
    expect(validateRetryConfig(input)).toEqual({ ok: true, config: input as never })
    expect(validateRetryConfig(undefined)).toEqual({ ok: true, config: {} })
  })

  test("deadlineMs with noDeadline is an error naming the budget", () => {
    expect(validateRetryConfig({ server: { deadlineMs: 1_000, noDeadline: true } })).toEqual({
      ok: false,
      errors: ["retry.server: deadlineMs and noDeadline are mutually exclusive"]
    })
    const r = validateRetryConfig({ rateLimit: { deadlineMs: 1, noDeadline: true } }, "provider.openai.retry")
    expect(r.ok ? [] : r.errors).toEqual(["provider.openai.retry.rateLimit: deadlineMs and noDeadline are mutually exclusive"])
  })

  test.each([101, -1, 1.5, "3", Number.NaN])("maxRetries %p is rejected", (maxRetries) => {
    const r = validateRetryConfig({ request: { maxRetries } })
    expect(r.ok ? [] : r.errors).toEqual(["retry.request.maxRetries: must be an integer from 0 to 100"])
  })

  test("delays must be >= 0, jitter in [0, 1], mode a known literal", () => {
    const r = validateRetryConfig({
      stream: { initialDelayMs: -1, maxDelayMs: Number.POSITIVE_INFINITY, deadlineMs: -5, jitterRatio: 1.5, mode: "forever", noDeadline: "yes" }
    })
    expect(r.ok ? [] : r.errors).toEqual([
      "retry.stream.initialDelayMs: must be a number >= 0",
      "retry.stream.maxDelayMs: must be a number >= 0",
      "retry.stream.deadlineMs: must be a number >= 0",
      "retry.stream.jitterRatio: must be a number from 0 to 1",
      'retry.stream.mode: must be "bounded" or "persistent"',
      "retry.stream.noDeadline: must be a boolean"
    ])
  })

  test("unknown budgets, unknown fields and non-objects are named", () => {
    const r = validateRetryConfig({ jitter: 0.1, server: { retries: 3 }, stream: 5 })
    expect(r.ok ? [] : r.errors.map((e) => e.split(":")[0])).toEqual(["retry.jitter", "retry.server.retries", "retry.stream"])
    expect(validateRetryConfig([1, 2])).toEqual({ ok: false, errors: ["retry: must be an object"] })
  })
})

describe("section-wide jitterRatio and retryableStatuses (seed 000)", () => {
  test("jitterRatio fills every budget that sets none; a budget's own value and a provider's section win", () => {
    const r = resolveRetryBudgets({ retry: { jitterRatio: 0, server: { jitterRatio: 0.3 } }, provider: { p: { retry: { jitterRatio: 0.05 } } } }, "p")
    expect(r.ok && r.budgets.request.jitterRatio).toBe(0.05)
    const top = resolveRetryBudgets({ retry: { jitterRatio: 0, server: { jitterRatio: 0.3 } } })
    expect(top.ok && [top.budgets.request.jitterRatio, top.budgets.server.jitterRatio, top.budgets.stream.jitterRatio]).toEqual([0, 0.3, 0])
    expect(validateRetryConfig({ jitterRatio: 2 }).ok).toBe(false)
  })
  test("retryableStatuses: the provider's list replaces the top-level one; bad entries are named", () => {
    const r = resolveRetryBudgets({ retry: { retryableStatuses: [409] }, provider: { p: { retry: { retryableStatuses: [404] } } } }, "p")
    expect(r.ok && r.retryableStatuses).toEqual([404])
    const top = resolveRetryBudgets({ retry: { retryableStatuses: [409] } }, "q")
    expect(top.ok && top.retryableStatuses).toEqual([409])
    const bad = validateRetryConfig({ retryableStatuses: [404, "x"] })
    expect(bad.ok ? [] : bad.errors).toEqual(["retry.retryableStatuses: must be a list of HTTP statuses (integers from 100 to 599)"])
  })
})

describe("overloadedImmediateRetries", () => {
  test("accepted as an integer 0-100 beside the budgets", () => {
    expect(validateRetryConfig({ overloadedImmediateRetries: 0 })).toEqual({ ok: true, config: { overloadedImmediateRetries: 0 } })
    const bad = validateRetryConfig({ overloadedImmediateRetries: 2.5 })
    expect(bad.ok ? [] : bad.errors).toEqual(["retry.overloadedImmediateRetries: must be an integer from 0 to 100"])
  })

  test("resolved: provider over top over the default of 3", () => {
    const r1 = resolveRetryBudgets({})
    expect(r1.ok && r1.overloadedImmediateRetries).toBe(3)
    const r2 = resolveRetryBudgets({ retry: { overloadedImmediateRetries: 1 }, provider: { p: { retry: { overloadedImmediateRetries: 0 } } } }, "p")
    expect(r2.ok && r2.overloadedImmediateRetries).toBe(0)
    const r3 = resolveRetryBudgets({ retry: { overloadedImmediateRetries: 1 } }, "p")
    expect(r3.ok && r3.overloadedImmediateRetries).toBe(1)
  })
})

describe("resolveRetryBudgets", () => {
  const root = {
    retry: { rateLimit: { maxRetries: 8 } },
    provider: { openai: { retry: { rateLimit: { maxDelayMs: 60_000 } } }, other: { retry: { server: { maxRetries: 1 } } } }
  }

  test("merges the top section with this provider's section only", () => {
    const r = resolveRetryBudgets(root, "openai")
    if (!r.ok) throw new Error(r.errors.join("\n"))
    expect(r.budgets.rateLimit).toMatchObject({ maxRetries: 8, maxDelayMs: 60_000 })
    expect(r.budgets.server).toEqual(DEFAULT_RETRY_BUDGETS.server)
  })

  test("no provider id uses the top section alone", () => {
    const r = resolveRetryBudgets(root)
    expect(r.ok && r.budgets.rateLimit.maxDelayMs).toBe(DEFAULT_RETRY_BUDGETS.rateLimit.maxDelayMs)
  })

  test("errors from both sections are reported with their paths", () => {
    const r = resolveRetryBudgets({ retry: { server: { maxRetries: 500 } }, provider: { x: { retry: { stream: { noDeadline: true, deadlineMs: 1 } } } } }, "x")
    expect(r.ok ? [] : r.errors).toEqual([
      "retry.server.maxRetries: must be an integer from 0 to 100",
      "provider.x.retry.stream: deadlineMs and noDeadline are mutually exclusive"
    ])
  })
})
