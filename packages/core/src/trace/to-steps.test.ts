import { describe, expect, test } from "bun:test"
import type { ToolPart } from "../model/message.js"
import { parseTrace } from "./parse.js"
import { traceToSteps } from "./to-steps.js"

const replay = (...lines: Array<string>) => traceToSteps(parseTrace(lines.join("\n")).lines)
const tools = (r: ReturnType<typeof replay>, step: number) => r.steps[step]!.reply.parts.filter((p): p is ToolPart => p.type === "tool")

describe("traceToSteps", () => {
  test("groups users before each step and attaches tool results by id", () => {
    const r = replay(
      `{"type":"session","id":"s","model":"m1"}`,
      `{"type":"user","text":"task"}`,
      `{"type":"assistant","reasoning":"think","text":"look","toolCalls":[{"id":"c1","name":"bash","input":{"command":"ls"}},{"id":"c2","name":"read","input":{"path":"a"}}],"finish":"tool-calls","usage":{"inputTokens":3}}`,
      `{"type":"tool-result","id":"c2","name":"read","output":"A"}`,
      `{"type":"tool-result","id":"c1","name":"bash","output":"files","exitCode":0}`,
      `{"type":"user","text":"one action please"}`,
      `{"type":"assistant","text":"done","finish":"stop"}`,
      `{"type":"user","text":"thanks"}`
    )
    expect(r.problems).toEqual([])
    expect(r.session?.model).toBe("m1")
    expect(r.steps.map((s) => [s.step, s.line, s.users.map((u) => u.text)])).toEqual([
      [0, 3, ["task"]],
      [1, 7, ["one action please"]]
    ])
    const s0 = r.steps[0]!.reply
    expect(s0).toMatchObject({ role: "assistant", id: "s0", parentId: "u2", model: "m1", finish: "tool-calls", usage: { inputTokens: 3 }, step: 0 })
    expect(s0.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool", "tool"])
    expect(tools(r, 0)).toEqual([
      { type: "tool", callId: "c1", name: "bash", input: { command: "ls" }, state: "completed", output: "files", exitCode: 0 },
      { type: "tool", callId: "c2", name: "read", input: { path: "a" }, state: "completed", output: "A" }
    ])
    expect(r.steps[1]!.reply.parentId).toBe("u6")
    expect(r.trailingUsers.map((u) => u.text)).toEqual(["thanks"])
    expect(r.messages.map((m) => m.id)).toEqual(["u2", "s0", "u6", "s1", "u8"])
  })

  test("error state when error:true or exitCode ≠ 0; path and diff carried", () => {
    const r = replay(
      `{"type":"assistant","toolCalls":[{"id":"a","name":"bash","input":{}},{"id":"b","name":"bash","input":{}},{"id":"c","name":"edit","input":{}}],"finish":"tool-calls"}`,
      `{"type":"tool-result","id":"a","output":"boom","exitCode":2}`,
      `{"type":"tool-result","id":"b","output":"no","error":true}`,
      `{"type":"tool-result","id":"c","output":"ok","path":"x.ts","diff":"+a"}`
    )
    const [a, b, c] = tools(r, 0)
    expect([a!.state, a!.error, a!.exitCode]).toEqual(["error", "exit code 2", 2])
    expect([b!.state, b!.error]).toEqual(["error", "tool reported an error"])
    expect([c!.state, c!.path, c!.diff]).toEqual(["completed", "x.ts", "+a"])
  })

  test("ids reused across steps match the newest unanswered call", () => {
    const r = replay(
      `{"type":"assistant","toolCalls":[{"id":"c0","name":"bash","input":{"command":"one"}}]}`,
      `{"type":"tool-result","id":"c0","output":"first"}`,
      `{"type":"assistant","toolCalls":[{"id":"c0","name":"bash","input":{"command":"two"}}]}`,
      `{"type":"tool-result","id":"c0","output":"second"}`
    )
    expect([tools(r, 0)[0]!.output, tools(r, 1)[0]!.output]).toEqual(["first", "second"])
    expect(r.problems).toEqual([])
  })

  test("a result for an earlier step's call still finds it", () => {
    const r = replay(
      `{"type":"assistant","toolCalls":[{"id":"x","name":"bash","input":{}}]}`,
      `{"type":"assistant","text":"waiting"}`,
      `{"type":"tool-result","id":"x","output":"late"}`
    )
    expect(tools(r, 0)[0]!.output).toBe("late")
  })

  test("orphan results and unanswered calls are problems; an unanswered call stays pending", () => {
    const r = replay(
      `{"type":"tool-result","id":"early","output":"?"}`,
      `{"type":"assistant","toolCalls":[{"id":"c1","name":"bash","input":{}}],"finish":"tool-calls"}`
    )
    expect(r.problems).toEqual([
      { line: 1, message: `tool result "early" matches no earlier unanswered tool call` },
      { line: 2, message: `tool call "c1" has no tool result` }
    ])
    expect(tools(r, 0)[0]!.state).toBe("pending")
  })

  test("assistant error becomes the reply's error; no session → no model", () => {
    const r = replay(`{"type":"assistant","error":{"message":"overloaded","status":529},"finish":"error"}`)
    const reply = r.steps[0]!.reply
    expect(reply.error).toEqual({ message: "overloaded", status: 529 })
    expect(reply.finish).toBe("error")
    expect("model" in reply).toBe(false)
    expect(reply.parentId).toBe("")
  })

  test("steps keep the parser's numbering when an assistant line was bad", () => {
    const parsed = parseTrace([`{"type":"assistant","text":"a"}`, `{"type":"assistant","finish":"bad"}`, `{"type":"assistant","text":"c"}`].join("\n"))
    const r = traceToSteps(parsed.lines)
    expect(r.steps.map((s) => [s.step, s.reply.id])).toEqual([
      [0, "s0"],
      [2, "s2"]
    ])
  })

  test("empty trace", () => {
    expect(traceToSteps([])).toEqual({ steps: [], messages: [], trailingUsers: [], problems: [] })
  })
})
