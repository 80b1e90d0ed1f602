import { describe, expect, test } from "bun:test"
import type { Message } from "../model/message.js"
import { messagesToTrace, traceText } from "./from-messages.js"
import { parseTrace } from "./parse.js"

const session: ReadonlyArray<Message> = [
  { role: "user", id: "u1", text: "Fix the test" },
  {
    role: "assistant",
    id: "a1",
    parentId: "u1",
    step: 0,
    finish: "tool-calls",
    usage: { inputTokens: 10, outputTokens: 4 },
    parts: [
      { type: "reasoning", text: "Look first." },
      { type: "text", text: "Running the tests." },
      { type: "tool", callId: "c1", name: "bash", input: { command: "npm test" }, state: "completed", output: "1 failing", exitCode: 1 },
      { type: "tool", callId: "c2", name: "edit", input: { path: "a.ts" }, state: "error", error: "denied", path: "a.ts" },
      { type: "tool", callId: "c3", name: "bash", input: { command: "ls" }, state: "pending" }
    ]
  },
  { role: "user", id: "u2", text: "Stop repeating yourself.", synthetic: "text-loop-mild" },
  { role: "assistant", id: "a2", parentId: "u1", step: 1, finish: "unknown", excluded: "rollback", parts: [{ type: "text", text: "I can't." }] }
]

describe("messagesToTrace", () => {
  test("one line per message and per tool result that ran, in order", () => {
    const lines = messagesToTrace(session, { id: "s1", model: "m" })
    expect(lines.map((l) => l.type)).toEqual(["session", "user", "assistant", "tool-result", "tool-result", "user", "assistant"])
    expect(lines[2]).toMatchObject({ reasoning: "Look first.", text: "Running the tests.", finish: "tool-calls", usage: { inputTokens: 10 } })
    expect(lines[2]!["toolCalls"]).toHaveLength(3)
    expect(lines[3]).toEqual({ type: "tool-result", id: "c1", name: "bash", output: "1 failing", exitCode: 1 })
    expect(lines[4]).toEqual({ type: "tool-result", id: "c2", name: "edit", output: "denied", error: true, path: "a.ts" })
    expect(lines[5]).toEqual({ type: "user", text: "Stop repeating yourself.", synthetic: "text-loop-mild" })
    expect(lines[6]).toEqual({ type: "assistant", text: "I can't.", excluded: "rollback" })
  })
  test("the written text parses back as a valid trace with the same steps", () => {
    const parsed = parseTrace(traceText(messagesToTrace(session, { id: "s1" })), "s1.jsonl")
    expect(parsed.errors).toEqual([])
    expect(parsed.session?.id).toBe("s1")
    expect(parsed.lines.filter((l) => l.type === "assistant")).toHaveLength(2)
    expect(parsed.lines.filter((l) => l.type === "tool-result")).toHaveLength(2)
  })
})
