import { addChildUsage } from "./budget-slice.js"
import { describe, expect, test } from "bun:test"
import { costOf, DEFAULT_PRICE_TABLE, priceFor, tokensOf } from "./pricing.js"
import { addSpent, capUsageOf, initUsageMeter, markSummaryDone, recordStep } from "./usage-meter.js"

describe("priceFor", () => {
  test("exact ids, provider prefixes and dated snapshots", () => {
    expect(priceFor("gpt-4o")).toBe(DEFAULT_PRICE_TABLE["gpt-4o"]!)
    expect(priceFor("openai/gpt-4o")).toBe(DEFAULT_PRICE_TABLE["gpt-4o"]!)
    expect(priceFor("gpt-4o-2024-08-06")).toBe(DEFAULT_PRICE_TABLE["gpt-4o"]!)
    expect(priceFor("gpt-4o-mini-2024-07-18")).toBe(DEFAULT_PRICE_TABLE["gpt-4o-mini"]!)
    expect(priceFor("anthropic/claude-sonnet-4-20250514")).toBe(DEFAULT_PRICE_TABLE["claude-sonnet-4"]!)
    expect(priceFor("o3-mini")).toBe(DEFAULT_PRICE_TABLE["o3-mini"]!)
  })
  test("unknown models and look-alikes get no price", () => {
    expect(priceFor("qwen3-8b")).toBeNull()
    expect(priceFor("gpt-4omni")).toBeNull()
    expect(priceFor("")).toBeNull()
    expect(priceFor("gpt-4o", {})).toBeNull()
  })
})

describe("costOf", () => {
  const price = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 }
  test("input, cached input and output are priced separately", () => {
    // 1M input of which 400k cached, 500k output: 600k*2 + 400k*0.5 + 500k*8 = 1.2 + 0.2 + 4.0
    expect(costOf({ inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 500_000 }, price)).toBeCloseTo(5.4, 10)
  })
  test("cached price defaults to the input price", () => {
    expect(costOf({ inputTokens: 1000, cachedInputTokens: 1000 }, { inputPerMTok: 3, outputPerMTok: 15 })).toBeCloseTo(0.003, 12)
  })
  test("unknown price or usage without input/output is null", () => {
    expect(costOf({ inputTokens: 10 }, null)).toBeNull()
    expect(costOf({ totalTokens: 10 }, price)).toBeNull()
  })
  test("tokensOf prefers the reported total", () => {
    expect(tokensOf({ inputTokens: 3, outputTokens: 4 })).toBe(7)
    expect(tokensOf({ inputTokens: 3, outputTokens: 4, totalTokens: 9 })).toBe(9)
  })
})

describe("usage meter", () => {
  const price = { inputPerMTok: 1, outputPerMTok: 2 }
  test("sums steps, tokens and cost; feeds capDecision", () => {
    let m = initUsageMeter()
    m = recordStep(m, { inputTokens: 1_000_000, outputTokens: 0 }, price)
    m = recordStep(m, { inputTokens: 0, outputTokens: 500_000, totalTokens: 500_000 }, price)
    m = recordStep(m, undefined, price)
    expect(m.stepsUsed).toBe(3)
    expect(m.tokens).toEqual({ input: 1_000_000, output: 500_000, total: 1_500_000 })
    expect(m.costUsd).toBeCloseTo(2, 10)
    expect(capUsageOf(markSummaryDone(m))).toEqual({ stepsUsed: 3, tokensUsed: 1_500_000, costUsd: m.costUsd, summaryDone: true })
  })
  test("addSpent adds tokens and cost, marks estimates, and counts no step", () => {
    const m = addSpent(recordStep(initUsageMeter(), { inputTokens: 10, outputTokens: 0 }, price), { inputTokens: 0, outputTokens: 500_000, estimated: true }, price)
    expect(m.stepsUsed).toBe(1)
    expect(m.tokens).toEqual({ input: 10, output: 500_000, total: 500_010, estimated: true })
    expect(m.costUsd).toBeCloseTo(1.00001, 10)
  })
  test("one unpriced step makes the cost unknown for good", () => {
    let m = recordStep(initUsageMeter(), { inputTokens: 10 }, price)
    m = recordStep(m, { inputTokens: 10 }, null)
    m = recordStep(m, { inputTokens: 10 }, price)
    expect(m.costUsd).toBeNull()
    expect(m.tokens.total).toBe(30)
  })
  test("a child's meter is its own; what it spent joins the parent's only through addChildUsage", () => {
    const parent = recordStep(initUsageMeter(), { inputTokens: 5, outputTokens: 5 }, price)
    const child = recordStep(recordStep(initUsageMeter(), { inputTokens: 1, outputTokens: 1 }, price), { inputTokens: 2, outputTokens: 0 }, price)
    expect([parent.stepsUsed, parent.tokens.total]).toEqual([1, 10])
    expect([child.stepsUsed, child.tokens.total]).toEqual([2, 4])
    const rolled = addChildUsage(parent, child)
    expect([rolled.stepsUsed, rolled.tokens.total]).toEqual([3, 14])
    expect(rolled.costUsd).toBeCloseTo((parent.costUsd ?? 0) + (child.costUsd ?? 0), 12)
    expect(parent.tokens.total).toBe(10)
  })
})
