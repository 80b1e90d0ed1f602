import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message } from "../model/message.js"
import { pendingPause } from "./pending-pause.js"

const incident = { kind: "action_streak", step: 3, detail: "4 edits in a row" }
const paused: AssistantMessage = {
  role: "assistant",
  id: "a3",
  parentId: "u0",
  step: 3,
  finish: "stop",
  parts: [{ type: "tool", callId: "c", name: "edit", input: {}, state: "completed" }, { type: "text", text: "Try-best loop detected; this turn was paused.", synthetic: true, metadata: { incident } }]
}
const user = (id: string, synthetic?: "continue"): Message => (synthetic ? { role: "user", id, text: "x", synthetic } : { role: "user", id, text: "x" })

describe("pendingPause", () => {
  test("the newest reply holds the pause notice: the pause is pending, with its incident", () => {
    expect(pendingPause([user("u0"), paused])).toEqual({ step: 3, notice: "Try-best loop detected; this turn was paused.", incident })
  })
  test("a person's turn after it ends the pause; a synthetic reminder does not", () => {
    expect(pendingPause([user("u0"), paused, user("u1")])).toBeNull()
    expect(pendingPause([user("u0"), paused, user("r1", "continue")])).not.toBeNull()
  })
  test("a later reply without a notice, or a session that never paused, has none", () => {
    const later: AssistantMessage = { ...paused, id: "a4", step: 4, parts: [{ type: "text", text: "done" }] }
    expect(pendingPause([user("u0"), paused, later])).toBeNull()
    expect(pendingPause([user("u0")])).toBeNull()
    expect(pendingPause([])).toBeNull()
  })
  test("an excluded reply after the pause is skipped", () => {
    const excluded: AssistantMessage = { ...paused, id: "a4", step: 4, parts: [{ type: "text", text: "x" }], excluded: "rollback" }
    expect(pendingPause([user("u0"), paused, excluded])?.step).toBe(3)
  })
})
