import { describe, expect, test } from "bun:test"
import { fixtureText, readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"
import { readTraceText } from "./read-text.js"

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

  test("a session log (newer versions): messages rewritten whole as they change, the last line of an id wins; $set lines apply", () => {
    const r = readFixture("gemini-log.jsonl")
    expect(r.format).toBe("gemini")
    expect(r.session).toMatchObject({ id: "9b2f6c1e-4a7d-4d0e-8c55-2f1e0a9d7b33", model: "gemini-2.5-pro" })
    const steps = stepsOf(r.lines)
    // The step is where its last (whole) line is: line 6, the one with its tool calls.
    expect(steps.map((s) => [s.line, s.text, s.toolCalls.map((c) => c.name)])).toEqual([
      [6, "I'll run the tests.", ["run_shell_command"]],
      [9, "The test expects 3; the function adds one too many. Fix src/sum.ts.", []]
    ])
    expect(steps[0]).toMatchObject({ reasoning: "Checking the failure: Run the tests first.", usage: { inputTokens: 3012, outputTokens: 61, reasoningTokens: 20 } })
    expect(resultsOf(r.lines).map((x) => [x.id, x.exitCode, x.error])).toEqual([["run_shell_command-1", 1, false]])
    // The context the CLI sets first and the person's message are user lines; the message that sends the results back is not.
    expect(r.lines.filter((l) => l.type === "user").map((l) => l.line)).toEqual([2, 3])
    expect(r.notes).toEqual([])
  })

  test("a resumed session log: earlier turns rewritten as functionCall / functionResponse parts are steps with their results, each answer once", () => {
    const call = (id: string) => ({ functionCall: { id, name: "run_shell_command", args: { command: "npm test" } } })
    const answer = (id: string) => ({ functionResponse: { id, name: "run_shell_command", response: { output: "1 failing\nExit Code: 1" } } })
    const earlier = [
      { id: "u0", type: "user", content: [{ text: "Make the tests pass." }] },
      { id: "g1", type: "gemini", content: [call("c1")] },
      { id: "g1_response", type: "user", content: [answer("c1")] },
      { id: "u2", type: "user", content: [answer("c1")] },
      { id: "g2", type: "gemini", content: [call("c2")] },
      { id: "g2_response", type: "user", content: [answer("c2")] },
      { id: "g3", type: "gemini", content: "Still failing." }
    ]
    const log = [
      { sessionId: "s-resumed", projectHash: "p", startTime: "2026-12-01T10:00:00Z", kind: "main" },
      { $set: { messages: earlier } },
      { id: "u4", type: "user", content: [{ text: "Try another way." }] },
      { id: "g5", type: "gemini", content: "Reading the test first.", model: "gemini-2.5-pro" }
    ]
    const r = readTraceText(log.map((l) => JSON.stringify(l)).join("\n"), "session-resumed.jsonl")
    expect(r.format).toBe("gemini")
    expect(stepsOf(r.lines).map((st) => [st.text ?? "", st.toolCalls.map((c) => c.id)])).toEqual([["", ["c1"]], ["", ["c2"]], ["Still failing.", []], ["Reading the test first.", []]])
    expect(resultsOf(r.lines).map((x) => [x.id, x.exitCode, x.error])).toEqual([["c1", 1, false], ["c2", 1, false]])
    expect(r.lines.filter((l) => l.type === "user").length).toBe(2)
    expect(r.notes).toEqual([])
  })

  test("a session log whose messages were set anew without what was written before (a loop the CLI cut) says so", () => {
    const ctx = { id: "ctx", type: "user", content: [{ text: "<session_context>" }] }
    const log = [
      { sessionId: "s-cut", projectHash: "p", startTime: "2026-12-01T10:00:00Z", kind: "main" },
      { $set: { messages: [ctx] } },
      { id: "u1", type: "user", content: [{ text: "Explain the configuration." }] },
      { id: "g2", type: "gemini", content: "I will now check the configuration again.", model: "gemini-2.5-pro" },
      { $set: { messages: [ctx] } }
    ]
    const r = readTraceText(log.map((l) => JSON.stringify(l)).join("\n"), "session-cut.jsonl")
    expect(stepsOf(r.lines)).toEqual([])
    expect(r.notes.map((n) => [n.line, n.message.slice(0, 60)])).toEqual([[5, "the chat's messages were set anew here and 2 message(s) writ"]])
  })

  test("a session log with a bad line: that line is noted, the rest read", () => {
    const lines = fixtureText("gemini-log.jsonl").split("\n")
    lines.splice(6, 0, "{not json")
    const r = readTraceText(lines.join("\n"), "bad.jsonl")
    expect(r.format).toBe("gemini")
    expect(stepsOf(r.lines)).toHaveLength(2)
    expect(r.notes.map((n) => n.line)).toEqual([7])
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
