import { describe, expect, test } from "bun:test"
import { detectFormat } from "./detect.js"
import { fixtureText, readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"
import { readTraceText } from "./read-text.js"

describe("SWE-agent and mini-SWE-agent trajectories", () => {
  test("mini-SWE-agent: each reply a step, its bash block the call, the next user message its result with the returncode", () => {
    const r = readFixture("mini-swe-agent.traj.json")
    expect(r.format).toBe("swe-agent")
    expect(r.session).toMatchObject({ agent: "mini-SWE-agent 1.15.0", model: "openai/gpt-5-mini" })
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => [c.name, c.input]))).toEqual([
      [["bash", { command: "python -m pytest tests/test_sum.py" }]],
      [],
      [["bash", { command: "sed -i 's/a + b + 1/a + b/' calc/sum.py" }]],
      [["bash", { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached" }]]
    ])
    const results = resultsOf(r.lines)
    expect(results.map((x) => [x.id, x.exitCode, x.error])).toEqual([[steps[0]!.toolCalls[0]!.id, 1, true], [steps[2]!.toolCalls[0]!.id, 0, false]])
    // The task, and the harness's format error after the reply with no action, are user lines.
    const users = r.lines.filter((l) => l.type === "user").map((l) => (l as { text: string }).text)
    expect(users).toEqual(["<pr_description>\nThe sum function adds one too many.\n</pr_description>", "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."])
    // Lines name where each message is written.
    expect(steps.map((s) => s.line)).toEqual([26, 34, 42, 60])
    expect(r.notes).toEqual([])
  })

  test("SWE-agent: each trajectory entry a step with its action and observation; the task from the history", () => {
    const r = readFixture("swe-agent.traj")
    expect(r.format).toBe("swe-agent")
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => [c.name, c.input]))).toEqual([
      [["bash", { command: "python -m pytest tests/test_sum.py" }]],
      [["str_replace_editor", { command: "view", path: "/repo/calc/sum.py" }]],
      [["submit", { command: "submit" }]]
    ])
    expect(resultsOf(r.lines).map((x) => x.output.slice(0, 6))).toEqual(["FAILED", "     1", "diff -"])
    expect(r.lines.find((l) => l.type === "user")).toMatchObject({ text: "We're currently solving the following issue: the sum function adds one too many." })
  })

  test("OpenAI's own tool form in a mini trajectory: calls and tool messages", () => {
    const doc = {
      info: { mini_version: "2.0.0" },
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "task" },
        { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "a.py" },
        { role: "assistant", content: "done" }
      ]
    }
    const r = readTraceText(JSON.stringify(doc, null, 2), "mini2.json")
    expect(r.format).toBe("swe-agent")
    expect(stepsOf(r.lines).map((s) => s.toolCalls.map((c) => [c.id, c.name, c.input]))).toEqual([[["call_1", "bash", { command: "ls" }]], []])
    expect(resultsOf(r.lines).map((x) => [x.id, x.name, x.output])).toEqual([["call_1", "bash", "a.py"]])
  })

  test("told apart from an OpenCode export and a Gemini checkpoint, which open alike", () => {
    expect(detectFormat(fixtureText("opencode.json"))).toBe("opencode")
    expect(detectFormat(fixtureText("gemini-checkpoint.json"))).toBe("gemini")
    expect(detectFormat(fixtureText("mini-swe-agent.traj.json"))).toBe("swe-agent")
    expect(detectFormat(fixtureText("swe-agent.traj"))).toBe("swe-agent")
  })

  test("what it cannot read is a note, never a throw", () => {
    for (const text of ["{}", "[]", '{"messages": 3}', '{"trajectory": [1, null, {"action": 5}]}', '{"messages": [{"role": "wizard", "content": "x"}]}', "not json"]) {
      expect(() => readTraceText(text, "odd.json", "swe-agent")).not.toThrow()
    }
    expect(readTraceText('{"messages": [{"role": "wizard", "content": "x"}]}', "odd.json", "swe-agent").notes.map((n) => n.message)).toEqual(['message with role "wizard" skipped'])
  })
})
