import { describe, expect, test } from "bun:test"
import { addChildUsage, budgetSlice } from "./budget-slice.js"
import { DEFAULT_CAP_POLICY } from "./cap-policy.js"
import { admitToolCall } from "./tool-call-cap.js"
import { initUsageMeter } from "./usage-meter.js"

const used = (stepsUsed: number, total: number, costUsd: number | null) => ({ ...initUsageMeter(), stepsUsed, tokens: { input: total, output: 0, total }, costUsd })
const options = { maxSteps: 20, tokenBudget: null, costBudgetUsd: null, shareOfRemaining: 0.5 }

describe("budgetSlice", () => {
  test("half of what the parent has left, never more than the child's own caps", () => {
    const parent = { ...DEFAULT_CAP_POLICY, maxSteps: 50, tokenBudget: 10_000, costBudgetUsd: 1 }
    expect(budgetSlice(parent, used(10, 4_000, 0.2), options)).toEqual({ maxSteps: 20, tokenBudget: 3_000, costBudgetUsd: 0.4 })
    expect(budgetSlice(parent, used(44, 4_000, 0.2), { ...options, tokenBudget: 500 })).toEqual({ maxSteps: 3, tokenBudget: 500, costBudgetUsd: 0.4 })
  })

  test("no parent budget: only the child's own caps; an unknown cost gives no cost slice", () => {
    expect(budgetSlice(DEFAULT_CAP_POLICY, used(0, 0, null), { ...options, costBudgetUsd: 0.1 })).toEqual({ maxSteps: 20, tokenBudget: null, costBudgetUsd: 0.1 })
  })

  test("nothing left, nothing to give", () => {
    const parent = { ...DEFAULT_CAP_POLICY, maxSteps: 5, tokenBudget: 100 }
    expect(budgetSlice(parent, used(5, 0, 0), options)).toBeNull()
    expect(budgetSlice(parent, used(1, 100, 0), options)).toBeNull()
  })

  test("a child's spending joins the parent's meter, its steps too", () => {
    const m = addChildUsage(used(3, 100, 0.01), { stepsUsed: 2, tokens: { input: 40, output: 10, total: 50 }, costUsd: 0.02 })
    expect([m.stepsUsed, m.tokens.total, m.costUsd]).toEqual([5, 150, 0.03])
    expect(addChildUsage(used(3, 100, 0.01), { stepsUsed: 0, tokens: { input: 0, output: 0, total: 0 }, costUsd: null }).costUsd).toBeNull()
  })
})

describe("admitToolCall", () => {
  test("a per-tool cap wins over the default; past the cap the call is refused and not counted", () => {
    const caps = { maxCallsPerTool: 3, perTool: { bash: 1 } }
    const first = admitToolCall({}, "bash", caps)
    expect(first).toEqual({ counts: { bash: 1 }, refusal: null })
    const second = admitToolCall(first.counts, "bash", caps)
    expect(second.refusal).toContain("bash reached its cap of 1 call in this run")
    expect(second.counts).toEqual({ bash: 1 })
    expect(admitToolCall({ read: 2 }, "read", caps).refusal).toBeNull()
    expect(admitToolCall({ read: 3 }, "read", caps).refusal).not.toBeNull()
    expect(admitToolCall({ x: 99 }, "x", { maxCallsPerTool: null, perTool: {} }).refusal).toBeNull()
  })
})
