import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message } from "./message.js"
import { toolResultText } from "./backend-helpers.js"
import { markInterruptedCalls } from "./interrupted.js"

const reply = (id: string, parts: AssistantMessage["parts"], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id,
  parentId: "u0",
  step: 3,
  parts,
  ...extra
})

describe("markInterruptedCalls", () => {
  test("a call written ahead and never answered becomes an error that says it may have run", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "user", id: "u0", text: "go" },
      reply("a1", [
        { type: "tool", callId: "c0", name: "bash", input: { command: "ls" }, state: "completed", output: "x" },
        { type: "tool", callId: "c1", name: "bash", input: { command: "rm -rf build" }, state: "running" }
      ])
    ]
    const { replies, calls } = markInterruptedCalls(messages)
    expect(calls).toEqual([{ messageId: "a1", step: 3, callId: "c1", name: "bash", input: { command: "rm -rf build" } }])
    expect(replies).toHaveLength(1)
    expect(replies[0]!.finish).toBe("unknown")
    const [done, cut] = replies[0]!.parts
    expect(done).toMatchObject({ state: "completed", output: "x" })
    expect(cut).toMatchObject({ state: "error" })
    // What the model reads as the result.
    const text = toolResultText(cut as never)
    expect(text).toContain("interrupted: this bash call (step 3) was started but its result was never recorded")
    expect(text).toContain("may or may not have taken effect")
  })

  test("answered calls, excluded replies and provider-run calls are left alone", () => {
    const messages: ReadonlyArray<Message> = [
      reply("a1", [{ type: "tool", callId: "c1", name: "bash", input: {}, state: "error", error: "exit 1" }], { finish: "tool-calls" }),
      reply("a2", [{ type: "tool", callId: "c2", name: "bash", input: {}, state: "running" }], { excluded: "replayed" }),
      reply("a3", [{ type: "tool", callId: "c3", name: "web_search", input: {}, state: "pending", providerExecuted: true }], { finish: "stop" })
    ]
    expect(markInterruptedCalls(messages)).toEqual({ replies: [], calls: [] })
  })
})
