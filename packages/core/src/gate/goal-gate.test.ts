import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { completionCheckFeedback, goalGatePrompt, parseGoalVerdict } from "./goal-gate.js"

describe("parseGoalVerdict", () => {
  test("MET and NOT MET on the first line, with markdown noise", () => {
    expect(parseGoalVerdict("MET\nThe test passes now.")).toEqual({ met: true, reason: "The test passes now.", understood: true })
    expect(parseGoalVerdict("**NOT MET**\nThe fix is missing for lists.").met).toBe(false)
    expect(parseGoalVerdict("Not met: nothing was changed").met).toBe(false)
    expect(parseGoalVerdict("## Met.").met).toBe(true)
  })
  test("'not met' is never read as 'met'", () => {
    expect(parseGoalVerdict("not met").met).toBe(false)
    expect(parseGoalVerdict("NOT MET").understood).toBe(true)
  })
  test("an unclear reply lets the run finish and says it was not understood", () => {
    const v = parseGoalVerdict("I think maybe it could be better?")
    expect(v).toMatchObject({ met: true, understood: false })
    expect(parseGoalVerdict("")).toMatchObject({ met: true, understood: false })
  })
  test("never throws", () => {
    fc.assert(fc.property(fc.string(), (s) => typeof parseGoalVerdict(s).met === "boolean"))
  })
})

describe("prompts", () => {
  test("the evaluator sees the goal, the work and the answer", () => {
    const p = goalGatePrompt("fix the test", "done", ["bash npm test"])
    expect(p).toContain("fix the test")
    expect(p).toContain("bash npm test")
    expect(p).toContain("MET or NOT MET")
  })
  test("completion feedback keeps the tail of long output", () => {
    const f = completionCheckFeedback("npm test", 1, "x".repeat(5000) + "FINAL LINE")
    expect(f).toContain("FINAL LINE")
    expect(f).toContain("exit 1")
    expect(f.length).toBeLessThan(3500)
  })
})
