import { describe, expect, test } from "bun:test"
import { detectFormat } from "./detect.js"
import { fixtureText, readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"
import { readTraceText } from "./read-text.js"

describe("Qwen Code session files", () => {
  test("an assistant record is a step with its thoughts, calls and usage; tool_result records answer its calls", () => {
    const r = readFixture("qwen-code.jsonl")
    expect(r.format).toBe("qwen-code")
    expect(r.session).toMatchObject({ id: "7c1e2f0a-5b8d-4e3a-9f21-0d6b8c4a1e77", model: "qwen3-coder-plus" })
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => [s.line, s.toolCalls.map((c) => c.name)])).toEqual([[3, ["run_shell_command"]], [5, ["edit"]], [9, []]])
    expect(steps[0]).toMatchObject({ reasoning: "Run the tests first to see the failure.", text: "I'll run the tests.", usage: { inputTokens: 3012, outputTokens: 61, reasoningTokens: 20, cachedInputTokens: 1024 } })
    expect(steps[1]!.toolCalls[0]).toMatchObject({ id: "call_2", input: { file_path: "/home/dev/calc/src/sum.ts", old_string: "a + b + 1" } })
    const results = resultsOf(r.lines)
    expect(results.map((x) => [x.line, x.id, x.exitCode, x.error])).toEqual([[4, "call_1", 1, false], [7, "call_2", undefined, true]])
    expect(results[1]!.output).toBe("old_string not found in /home/dev/calc/src/sum.ts")
    expect(r.lines.find((l) => l.type === "user")).toMatchObject({ line: 2, text: "The sum test fails. Fix it." })
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([[6, "1 sub-agent (isSidechain) records left out: they are another agent's run"]])
  })

  test("told apart from a Claude Code session file, whose records also carry uuid and sessionId", () => {
    expect(detectFormat(fixtureText("qwen-code.jsonl"))).toBe("qwen-code")
    expect(detectFormat(fixtureText("claude-code.jsonl"))).toBe("claude-code")
    // A file that opens with a system record is told by the first record that says something.
    const lines = fixtureText("qwen-code.jsonl").split("\n")
    expect(detectFormat(lines.slice(0, 1).join("\n"))).toBe("qwen-code")
  })

  test("what it cannot read is a note, never a throw", () => {
    for (const text of ["{}", "not json", '{"type": "assistant", "message": {"parts": 3}}', '{"type": "wizard"}', '{"type": "tool_result", "message": {"parts": [{"functionResponse": {"name": "x"}}]}}']) {
      expect(() => readTraceText(text, "odd.jsonl", "qwen-code")).not.toThrow()
    }
    expect(readTraceText('{"type": "wizard"}', "odd.jsonl", "qwen-code").notes.map((n) => n.message)).toEqual(['record of type "wizard" skipped'])
  })

  test("the telemetry of a failed model call (qwen-code.api_error) is a step with that error; other telemetry is none", () => {
    const base = { uuid: "u", parentUuid: null, sessionId: "s1", timestamp: "t" }
    const telemetry = (uiEvent: object) => ({ ...base, type: "system", subtype: "ui_telemetry", systemPayload: { uiEvent } })
    const text = [
      { ...base, type: "user", message: { role: "user", parts: [{ text: "Write marker.txt." }] } },
      telemetry({ "event.name": "qwen-code.api_response", status_code: 200 }),
      telemetry({ "event.name": "qwen-code.api_error", error_message: "400 prompt is too long", error_type: "BadRequestError", status_code: 400 })
    ].map((o) => JSON.stringify(o)).join("\n")
    const steps = stepsOf(readTraceText(text, "fault.jsonl").lines)
    expect(steps).toMatchObject([{ line: 3, finish: "error", error: { message: "400 prompt is too long", name: "BadRequestError", status: 400 }, toolCalls: [] }])
  })
})
