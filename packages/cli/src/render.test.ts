import { buildReport } from "@loopguard/core/report"
import { describe, expect, test } from "bun:test"
import { formatReport } from "./render.js"

describe("formatReport", () => {
  test("the exit reason, where it got blocked, what was done, where it is saved and each sub-agent", () => {
    const report = buildReport({
      reason: "budget_tokens",
      stepsUsed: 7,
      tokens: { input: 900, output: 300, total: 1200 },
      completed: ["changed src/a.ts", "ran `bun test` (exit 1)"],
      blockedAt: "step 7: The token budget (loop.tokenBudget) was spent",
      savedAt: "session: /tmp/s.jsonl; workspace: /work (changed: src/a.ts)",
      subagents: [{ sessionId: "s/task-1", step: 3, depth: 1, status: "completed", reason: "final", stepsUsed: 2, tokens: { input: 80, output: 20, total: 100 }, costUsd: null }]
    })
    const text = formatReport(report)
    expect(text).toContain("── ABORTED: budget_tokens after 7 step(s), 1200 tokens")
    expect(text).toContain("blocked at: step 7: The token budget (loop.tokenBudget) was spent")
    expect(text).toContain("completed: changed src/a.ts; ran `bun test` (exit 1)")
    expect(text).toContain("saved: session: /tmp/s.jsonl; workspace: /work (changed: src/a.ts)")
    expect(text).toContain("sub-agent s/task-1: final after 2 step(s), 100 tokens (counted above)")
  })
})
