import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { CapMode, CapPolicy, CapUsage } from "./cap-policy.js"
import { capDecision, DEFAULT_CAP_POLICY } from "./cap-policy.js"

const policy = (over: Partial<CapPolicy>): CapPolicy => ({ ...DEFAULT_CAP_POLICY, ...over })
const usage = (stepsUsed: number, over: Partial<CapUsage> = {}): CapUsage => ({ stepsUsed, tokensUsed: 0, costUsd: 0, ...over })

/** Drive a loop whose model never finishes; return the decision sequence until it stops. */
const drive = (p: CapPolicy, tokensPerStep = 0, maxIter = 1000) => {
  const seen: string[] = []
  let steps = 0
  let summaryDone = false
  for (let i = 0; i < maxIter; i++) {
    const d = capDecision(p, usage(steps, { tokensUsed: steps * tokensPerStep, summaryDone }))
    if (d === "proceed") seen.push("proceed")
    else if (d.type === "last-step") seen.push("last-step")
    else if (d.type === "summary") {
      seen.push(`summary:${d.reason}`)
      summaryDone = true
    } else {
      seen.push(`stop:${d.reason}`)
      return { seen, steps }
    }
    steps++
  }
  return { seen, steps }
}

describe("defaults", () => {
  test("the documented defaults", () => {
    expect(DEFAULT_CAP_POLICY).toEqual({
      mode: "hard", maxSteps: 50, tokenBudget: null, costBudgetUsd: null, toolTimeoutMs: 120_000, stepTimeoutMs: null
    })
  })
})

describe("hard", () => {
  test("exactly maxSteps steps, then stop with max_steps", () => {
    const { seen, steps } = drive(policy({ maxSteps: 5 }))
    expect(steps).toBe(5)
    expect(seen).toEqual(["proceed", "proceed", "proceed", "proceed", "proceed", "stop:max_steps"])
  })
})

describe("soft", () => {
  test("the last allowed step is tool-less with the soft-cap message; then stop", () => {
    const { seen, steps } = drive(policy({ mode: "soft", maxSteps: 4 }))
    expect(steps).toBe(4)
    expect(seen).toEqual(["proceed", "proceed", "proceed", "last-step", "stop:max_steps"])
  })
  test("maxSteps = 1: the only step is already the last one", () => {
    expect(capDecision(policy({ mode: "soft", maxSteps: 1 }), usage(0))).toEqual({ type: "last-step" })
  })
  test("a spent budget stops soft mode without a warning step", () => {
    expect(capDecision(policy({ mode: "soft", tokenBudget: 100 }), usage(2, { tokensUsed: 100 }))).toEqual({ type: "stop", reason: "budget_tokens" })
  })
})

describe("summary", () => {
  test("one tool-less summary request after the steps are spent, then stop", () => {
    const { seen, steps } = drive(policy({ mode: "summary", maxSteps: 3 }))
    expect(seen).toEqual(["proceed", "proceed", "proceed", "summary:max_steps", "stop:max_steps"])
    expect(steps).toBe(4)
  })
  test("a spent token budget also gets exactly one summary", () => {
    const { seen } = drive(policy({ mode: "summary", maxSteps: 100, tokenBudget: 250 }), 100)
    expect(seen).toEqual(["proceed", "proceed", "proceed", "summary:budget_tokens", "stop:budget_tokens"])
  })
})

describe("none", () => {
  test("never stops on steps", () => {
    const { seen } = drive(policy({ mode: "none", maxSteps: 3 }), 0, 200)
    expect(seen.every((s) => s === "proceed")).toBe(true)
    expect(seen.length).toBe(200)
  })
  test("but still stops on a token or cost budget", () => {
    expect(capDecision(policy({ mode: "none", tokenBudget: 1000 }), usage(500, { tokensUsed: 1000 }))).toEqual({ type: "stop", reason: "budget_tokens" })
    expect(capDecision(policy({ mode: "none", costBudgetUsd: 1 }), usage(5, { costUsd: 1.01 }))).toEqual({ type: "stop", reason: "budget_cost" })
  })
})

describe("budgets", () => {
  test("an unknown cost never trips the cost budget", () => {
    expect(capDecision(policy({ costBudgetUsd: 0.01 }), usage(1, { costUsd: null }))).toBe("proceed")
  })
  test("budget beats max_steps when both are spent", () => {
    expect(capDecision(policy({ maxSteps: 2, tokenBudget: 10 }), usage(2, { tokensUsed: 10 }))).toEqual({ type: "stop", reason: "budget_tokens" })
  })
  test("the cost budget is named before the token budget when both are spent", () => {
    expect(capDecision(policy({ tokenBudget: 10, costBudgetUsd: 1 }), usage(1, { tokensUsed: 10, costUsd: 1 }))).toEqual({ type: "stop", reason: "budget_cost" })
  })
  test("below the budget proceeds", () => {
    expect(capDecision(policy({ tokenBudget: 10, costBudgetUsd: 1 }), usage(1, { tokensUsed: 9, costUsd: 0.99 }))).toBe("proceed")
  })
})

describe("properties", () => {
  test("bounded modes stop after at most maxSteps + 1 steps; never a stop before the cap without a budget", () => {
    fc.assert(
      fc.property(fc.constantFrom<CapMode>("hard", "soft", "summary"), fc.integer({ min: 1, max: 60 }), (mode, maxSteps) => {
        const { seen, steps } = drive(policy({ mode, maxSteps }))
        expect(seen[seen.length - 1]).toBe("stop:max_steps")
        expect(steps).toBe(mode === "summary" ? maxSteps + 1 : maxSteps)
        expect(seen.filter((s) => s.startsWith("summary")).length).toBe(mode === "summary" ? 1 : 0)
        expect(seen.filter((s) => s === "last-step").length).toBe(mode === "soft" ? 1 : 0)
      })
    )
  })
})
