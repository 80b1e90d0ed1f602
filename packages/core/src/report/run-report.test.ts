import { describe, expect, test } from "bun:test"
import { EXIT_REASONS } from "../model/exit.js"
import { initRecovery } from "../classify/recovery-policy.js"
import { EXIT_OUTCOMES, statusOf, suggestionFor } from "./exit-outcomes.js"
import { buildReport } from "./run-report.js"
import { summarizeWork } from "./work-summary.js"

describe("exit outcome table", () => {
  test("is total: every exit reason has a status, a summary and a suggestion, and nothing else", () => {
    expect(Object.keys(EXIT_OUTCOMES).sort()).toEqual([...EXIT_REASONS].sort())
    for (const reason of EXIT_REASONS) {
      expect(["completed", "aborted", "paused"]).toContain(statusOf(reason))
      expect(EXIT_OUTCOMES[reason].summary.length).toBeGreaterThan(10)
      expect(suggestionFor(reason).length).toBeGreaterThan(10)
    }
  })

  test("only final completes and only the try-best pause pauses", () => {
    expect(EXIT_REASONS.filter((r) => statusOf(r) === "completed")).toEqual(["final"])
    expect(EXIT_REASONS.filter((r) => statusOf(r) === "paused")).toEqual(["try_best_paused"])
  })

  test("suggestions are specific: no two reasons share one", () => {
    const all = EXIT_REASONS.map(suggestionFor)
    expect(new Set(all).size).toBe(all.length)
  })
})

describe("buildReport", () => {
  test("an abort names where it got blocked (the error), the suggestion and the evidence", () => {
    const r = buildReport({
      reason: "circuit_open",
      stepsUsed: 30,
      tokens: { input: 1000, output: 200, total: 1200 },
      costUsd: 0.12,
      completed: summarizeWork([
        {
          role: "assistant",
          id: "a0",
          parentId: "u0",
          step: 0,
          parts: [{ type: "tool", callId: "c0", name: "edit", input: { path: "auth.py" }, state: "completed", path: "auth.py", diff: "-a\n+b" }]
        }
      ]),
      savedAt: "session s1",
      error: { tag: "CircuitOpenError", message: "3 consecutive tool failures (pytest: timeout)" },
      retries: { ...initRecovery(), transport: 2 },
      incidents: [{ step: 29, detector: "breaker", action: "hand-back" }]
    })
    expect(r.status).toBe("aborted")
    expect(r.completed).toEqual(["changed auth.py"])
    expect(r.blockedAt).toBe("3 consecutive tool failures (pytest: timeout)")
    expect(r.suggestedNextStep).toBe(suggestionFor("circuit_open"))
    expect(r.retries.transport).toBe(2)
    expect(r.error?.tag).toBe("CircuitOpenError")
    expect(JSON.parse(JSON.stringify(r))).toEqual(r)
  })

  test("a completed run has no blockedAt and no error field", () => {
    const r = buildReport({ reason: "final", stepsUsed: 3 })
    expect(r).toEqual({
      status: "completed",
      reason: "final",
      stepsUsed: 3,
      tokens: { input: 0, output: 0, total: 0 },
      costUsd: null,
      completed: [],
      blockedAt: null,
      suggestedNextStep: suggestionFor("final"),
      savedAt: null,
      retries: {},
      incidents: []
    })
    expect("error" in r).toBe(false)
    expect("finalText" in r).toBe(false)
    expect(buildReport({ reason: "final", stepsUsed: 3, finalText: "Fixed." }).finalText).toBe("Fixed.")
  })

  test("without an error, blockedAt falls back to the reason's summary; explicit values win", () => {
    expect(buildReport({ reason: "max_steps", stepsUsed: 50 }).blockedAt).toBe(EXIT_OUTCOMES.max_steps.summary)
    const r = buildReport({ reason: "try_best_paused", stepsUsed: 9, blockedAt: "editing src/a.ts", suggestedNextStep: "hand off" })
    expect([r.status, r.blockedAt, r.suggestedNextStep]).toEqual(["paused", "editing src/a.ts", "hand off"])
  })

  test("every exit reason builds a report", () => {
    for (const reason of EXIT_REASONS) {
      const r = buildReport({ reason, stepsUsed: 1 })
      expect(r.status).toBe(statusOf(reason))
      expect(r.blockedAt === null).toBe(r.status === "completed")
    }
  })
})
