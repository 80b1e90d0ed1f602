import { describe, expect, test } from "bun:test"
import { DEFAULT_CAP_POLICY } from "./cap-policy.js"
import { capNotice, capUsageText } from "./cap-notice.js"

const policy = { ...DEFAULT_CAP_POLICY, maxSteps: 10, tokenBudget: 5000, costBudgetUsd: 0.5 }

describe("capNotice", () => {
  test("the soft-cap last step names the step it is and the cap", () => {
    const text = capNotice({ type: "last-step" }, policy, { stepsUsed: 9, tokensUsed: 0, costUsd: 0 }, "main")
    expect(text).toStartWith("Maximum steps reached: this is step 10 of 10, the last one allowed by the step cap.")
    expect(text).toContain("Answer the user in text only")
  })

  test("the summary request says which cap fired and how much was used", () => {
    const usage = { stepsUsed: 4, tokensUsed: 5120, costUsd: 0.5123 }
    expect(capNotice({ type: "summary", reason: "budget_tokens" }, policy, usage, "subagent")).toContain("the token budget (5120 of 5000 tokens used) is reached")
    expect(capNotice({ type: "summary", reason: "budget_cost" }, policy, usage, "main")).toContain("the cost budget ($0.5123 of $0.5000 used)")
    expect(capNotice({ type: "summary", reason: "max_steps" }, policy, usage, "subagent")).toContain("Return your result to the parent agent")
  })

  test("usage text for each cap", () => {
    expect(capUsageText("max_steps", policy, { stepsUsed: 10, tokensUsed: 0, costUsd: null })).toBe("the step cap (10 of 10 steps used)")
  })
})
