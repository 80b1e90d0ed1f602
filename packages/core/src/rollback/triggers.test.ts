import { describe, expect, test } from "bun:test"
import type { AssistantMessage, AssistantPart, ToolPart } from "../model/message.js"
import { initDuplicateQueries, recordExecuted } from "./duplicate-query.js"
import { detectDuplicateCall, detectReplyTrigger, detectUselessResult, replyView } from "./triggers.js"

const reply = (parts: ReadonlyArray<AssistantPart>): AssistantMessage => ({ role: "assistant", id: "a1", parentId: "u1", step: 0, parts, finish: "stop" })
const text = (t: string, synthetic = false): AssistantPart => (synthetic ? { type: "text", text: t, synthetic } : { type: "text", text: t })
const tool = (name: string, state: ToolPart["state"], extra: Partial<ToolPart> = {}): ToolPart => ({
  type: "tool",
  callId: `c-${name}`,
  name,
  input: {},
  state,
  ...extra
})

describe("detectReplyTrigger", () => {
  test("format leak in a reply without calls", () => {
    expect(detectReplyTrigger(reply([text("<use_mcp_tool><server_name>s</server_name>")]))).toEqual({
      kind: "format-leak",
      marker: "use_mcp_tool",
      family: "MCP XML"
    })
  })

  test("a leak wins over a refusal in the same reply (the model meant to act)", () => {
    expect(detectReplyTrigger({ text: "I'm sorry, but I can't <tool_name>x</tool_name>", toolCalls: 0 })?.kind).toBe("format-leak")
  })

  test("refusal in a reply without calls", () => {
    expect(detectReplyTrigger(reply([text("Lo siento, no puedo.")]))).toEqual({ kind: "refusal", phrase: "lo siento, no puedo", language: "es" })
  })

  test("a reply with a structured call is never a format or refusal trigger", () => {
    expect(detectReplyTrigger(reply([text("I'm sorry, but I can't <use_mcp_tool>"), tool("bash", "completed")]))).toBeNull()
  })

  test("synthetic text written by loopguard is not read", () => {
    const r = reply([text("Answer: 42."), text("I'm sorry, but I can't continue: paused.", true)])
    expect(replyView(r)).toEqual({ text: "Answer: 42.", toolCalls: 0 })
    expect(detectReplyTrigger(r)).toBeNull()
  })

  test("options reach the detectors", () => {
    expect(detectReplyTrigger({ text: "Nope.", toolCalls: 0 }, { refusal: { phrases: [{ language: "en", phrase: "nope" }], leadChars: 80, shortReplyChars: 300 } })?.kind).toBe("refusal")
    expect(detectReplyTrigger({ text: "<use_mcp_tool>", toolCalls: 0 }, { formatLeakMarkers: [] })).toBeNull()
  })
})

describe("detectDuplicateCall", () => {
  test("the first call repeating an executed query, with its call id", () => {
    const state = recordExecuted(initDuplicateQueries(), { agent: "main", tool: "google_search", arguments: { q: "x" } })
    const calls = [
      { id: "1", name: "google_search", arguments: { q: "y" } },
      { id: "2", name: "google_search", arguments: { q: " X " } }
    ]
    expect(detectDuplicateCall(state, "main", calls)).toMatchObject({ kind: "duplicate-query", tool: "google_search", count: 1, callId: "2" })
    expect(detectDuplicateCall(state, "sub", calls)).toBeNull()
    expect(detectDuplicateCall(initDuplicateQueries(), "main", calls)).toBeNull()
  })
})

describe("detectUselessResult", () => {
  test("reads finished tool parts: output when completed, error when failed; skips running ones", () => {
    expect(detectUselessResult([tool("google_search", "running"), tool("bash", "completed", { output: "ok" })])).toBeNull()
    expect(detectUselessResult([tool("google_search", "completed", { output: "[]" })])).toEqual({
      kind: "useless-result",
      rule: "empty-search",
      tool: "google_search",
      callId: "c-google_search"
    })
    expect(detectUselessResult([tool("frobnicate", "error", { error: "Unknown tool: frobnicate" })])?.kind).toBe("useless-result")
  })

  test("plain result views work too", () => {
    expect(detectUselessResult([{ tool: "x", output: "Error executing tool x" }])).toEqual({ kind: "useless-result", rule: "tool-error", tool: "x" })
  })
})
