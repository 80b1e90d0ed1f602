import { describe, expect, test } from "bun:test"
import { readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"

describe("Gemini CLI chats", () => {
  test("a session record: a gemini message is a step with its thoughts, calls, results and tokens", () => {
    const r = readFixture("gemini-session.json")
    expect(r.format).toBe("gemini")
    expect(r.session).toMatchObject({ id: "3e9d5a10-77aa-4f0e-9b31-2c2f5a0e8d41", model: "gemini-2.5-pro" })
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([["run_shell_command"], ["replace"], ["run_shell_command"], ["run_shell_command"], ["run_shell_command"], []])
    expect(steps[0]).toMatchObject({ reasoning: "Checking the failure: Run the tests first to see the failure.", usage: { inputTokens: 3012, outputTokens: 61, reasoningTokens: 20 } })
    const results = resultsOf(r.lines)
    expect(results[0]).toMatchObject({ id: "run_shell_command-1", exitCode: 1, error: false })
    expect(results[1]).toMatchObject({ name: "replace", path: "/home/dev/calc/src/sum.ts" })
    expect(results[1]!.diff).toContain("+  return a + b")
    expect(r.notes.map((n) => n.message)).toEqual([`message of type "compression" skipped`])
  })

  test("a /chat save checkpoint: model turns are steps, function responses matched by name in order", () => {
    const r = readFixture("gemini-checkpoint.json")
    expect(r.format).toBe("gemini")
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => [s.reasoning ?? "", s.text ?? "", s.toolCalls.map((c) => c.name)])).toEqual([
      ["Run the tests first to see the failure.", "", ["run_shell_command"]],
      ["", "The function adds one too many. Fixing it.", ["replace"]],
      ["", "Done: the test should pass now.", []]
    ])
    const results = resultsOf(r.lines)
    expect(results.map((x) => [x.id, x.exitCode])).toEqual([[steps[0]!.toolCalls[0]!.id, 1], [steps[1]!.toolCalls[0]!.id, undefined]])
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([[11, `function response "read_file" answers no call of the turn before; skipped`]])
  })
})
