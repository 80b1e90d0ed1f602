import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "../model/message.js"
import { streamedUsage } from "./streamed-usage.js"

const reply = (parts: AssistantMessage["parts"], usage?: AssistantMessage["usage"]): AssistantMessage => ({
  role: "assistant",
  id: "a",
  parentId: "u",
  parts,
  step: 0,
  ...(usage !== undefined ? { usage } : {})
})

describe("streamedUsage", () => {
  test("the server's count stands when it sent one", () => {
    expect(streamedUsage(reply([{ type: "text", text: "x".repeat(400) }], { inputTokens: 5, outputTokens: 7 }))).toEqual({ inputTokens: 5, outputTokens: 7 })
  })

  test("without one, text, reasoning and tool arguments are estimated (4 characters a token) and marked", () => {
    const parts: AssistantMessage["parts"] = [
      { type: "reasoning", text: "r".repeat(40) },
      { type: "text", text: "t".repeat(400) },
      { type: "tool", callId: "c", name: "bash", input: { command: "ls" }, state: "pending" }
    ]
    // 40 + 400 + 16 (`{"command":"ls"}`) characters = 114 tokens.
    expect(streamedUsage(reply(parts, { inputTokens: 20 }))).toEqual({ inputTokens: 20, outputTokens: 114, totalTokens: 134, estimated: true })
    expect(streamedUsage(reply([])).outputTokens).toBe(0)
  })
})

describe("the prompt of a step cut short", () => {
  test("is the request's estimate when the server gave no input count, asked for only then", () => {
    let asked = 0
    const prompt = () => (asked++, 900)
    expect(streamedUsage(reply([{ type: "text", text: "t".repeat(40) }]), prompt)).toEqual({ inputTokens: 900, outputTokens: 10, totalTokens: 910, estimated: true })
    expect(streamedUsage(reply([], { inputTokens: 20 }), prompt).inputTokens).toBe(20)
    expect(streamedUsage(reply([], { inputTokens: 5, outputTokens: 7 }), prompt)).toEqual({ inputTokens: 5, outputTokens: 7 })
    expect(asked).toBe(1)
  })
})
