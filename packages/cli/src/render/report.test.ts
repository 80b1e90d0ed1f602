import { describe, expect, test } from "bun:test"
import { buildReport } from "@loopguard/core/report"
import { exitLine, MAX_FIELD_LINES, reportDetails, stepsFromOne } from "./report.js"
import { makeStyle } from "./style.js"

const plain = makeStyle(false)

describe("the lines that close a turn", () => {
  test("the exit reason in words with its code, where it stopped, what was done, where it is saved and each sub-agent", () => {
    const report = buildReport({
      reason: "budget_tokens",
      stepsUsed: 7,
      tokens: { input: 900, output: 300, total: 1200 },
      completed: ["changed src/a.ts", "ran `bun test` (exit 1)"],
      blockedAt: "step 7: The token budget (loop.tokenBudget) was spent; last failure: step 6, tool bash",
      savedAt: "session: /tmp/s.jsonl; workspace: /work (changed: src/a.ts)",
      subagents: [{ sessionId: "s/task-1", step: 3, depth: 1, status: "completed", reason: "final", stepsUsed: 2, tokens: { input: 80, output: 20, total: 100 }, costUsd: null }]
    })
    expect(exitLine(report, 2500, plain)).toMatch(/^── stopped: .* \(budget_tokens\) · 7 steps · 1,200 tokens · price unknown · 2\.5 s$/)
    const text = reportDetails(report, plain).join("\n")
    expect(text).toContain("stopped at: step 8: The token budget (loop.tokenBudget) was spent; last failure: step 7, tool bash")
    expect(text).toContain("done so far: changed src/a.ts; ran `bun test` (exit 1)")
    expect(text).toContain("saved: session: /tmp/s.jsonl; workspace: /work (changed: src/a.ts)")
    expect(text).toContain("sub-agent s/task-1: finished with an answer (final) after 2 steps, 100 tokens (counted above)")
  })
  test("a provider error of several lines keeps the block's shape: later lines indented under the field, a long one cut", () => {
    const message = "JSON parsing failed: Text: {not json.\nError message: SyntaxError: JSON Parse error: Expected '}' (gave up after 4 retries)"
    const report = buildReport({
      reason: "model_error",
      stepsUsed: 1,
      blockedAt: `step 0: ${message}`,
      error: { tag: "AI_JSONParseError", message, uiMessage: "The reply could not be read: …" }
    })
    const lines = reportDetails(report, plain)
    expect(lines.slice(0, 3)).toEqual([
      "   stopped at: step 1: JSON parsing failed: Text: {not json.",
      "     Error message: SyntaxError: JSON Parse error: Expected '}' (gave up after 4 retries) (AI_JSONParseError)",
      "   in short: The reply could not be read: …"
    ])
    // Every line of the block is indented: none reads as a line of its own.
    for (const l of lines) expect(l).toStartWith("   ")
    const page = Array.from({ length: 40 }, (_, i) => `<p>line ${i}</p>`).join("\n\n")
    const long = reportDetails(buildReport({ reason: "model_error", stepsUsed: 1, error: { tag: "APICallError", message: page } }), plain)
    const what = long.slice(0, long.findIndex((l) => l.startsWith("   next:")))
    expect(what).toHaveLength(MAX_FIELD_LINES)
    expect(what[0]).toStartWith("   stopped at: ")
    expect(what.at(-1)).toBe("     … (35 more lines)")
  })
  test("a finished run says only where it is saved", () => {
    const report = buildReport({ reason: "final", stepsUsed: 1, savedAt: "in memory only" })
    expect(reportDetails(report, plain)).toEqual(["   saved: in memory only"])
  })
})

test("steps are shown counted from 1", () => {
  expect(stepsFromOne("step 0: x; last failure: step 12, tool bash; steps 3")).toBe("step 1: x; last failure: step 13, tool bash; steps 3")
  // The evidence of a stop names ranges and lists of steps: each number counts from 1 too.
  expect(stepsFromOne("step 19: stopped: `make` ran 8 times in a row (steps 12-19); again at steps 3, 5, 9")).toBe(
    "step 20: stopped: `make` ran 8 times in a row (steps 13-20); again at steps 4, 6, 10"
  )
})
