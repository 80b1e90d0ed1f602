import { describe, expect, test } from "bun:test"
import type { AssistantMessage, AssistantPart } from "../model/message.js"
import { doomLoop } from "./doom-loop.js"

let n = 0
const tool = (name: string, input: unknown, state: "pending" | "completed" = "completed"): AssistantPart => ({
  type: "tool",
  callId: `c${n++}`,
  name,
  input,
  state
})

const msg = (...parts: Array<AssistantPart>): AssistantMessage => ({ role: "assistant", id: "a", parentId: "u", parts, step: 0 })

describe("doomLoop", () => {
  test("3 identical calls in one message → the tool and input; 2 → null", () => {
    const input = { command: "npm test" }
    expect(doomLoop(msg(tool("bash", input), tool("bash", input)))).toBeNull()
    expect(doomLoop(msg(tool("bash", input), tool("bash", input), tool("bash", input, "pending")))).toEqual({ tool: "bash", input })
  })

  test("input compared by sorted-key JSON", () => {
    expect(doomLoop(msg(tool("edit", { a: 1, b: 2 }), tool("edit", { b: 2, a: 1 }), tool("edit", { a: 1, b: 2 })))?.tool).toBe("edit")
    expect(doomLoop(msg(tool("edit", { a: 1 }), tool("edit", { a: 2 }), tool("edit", { a: 1 })))).toBeNull()
  })

  test("a different tool with the same input breaks it", () => {
    expect(doomLoop(msg(tool("read", { p: 1 }), tool("grep", { p: 1 }), tool("read", { p: 1 })))).toBeNull()
  })

  test("only the newest parts count: a text part at the end or between breaks it, earlier ones do not", () => {
    const t: AssistantPart = { type: "text", text: "again" }
    const x = { q: 1 }
    expect(doomLoop(msg(tool("s", x), tool("s", x), tool("s", x), t))).toBeNull()
    expect(doomLoop(msg(tool("s", x), t, tool("s", x), tool("s", x)))).toBeNull()
    expect(doomLoop(msg(t, tool("s", x), tool("s", x), tool("s", x)))).toEqual({ tool: "s", input: x })
  })

  test("configurable repeats", () => {
    const x = { q: 1 }
    expect(doomLoop(msg(tool("s", x), tool("s", x)), { repeats: 2 })).toEqual({ tool: "s", input: x })
    expect(doomLoop(msg(tool("s", x), tool("s", x), tool("s", x)), { repeats: 4 })).toBeNull()
  })
})
