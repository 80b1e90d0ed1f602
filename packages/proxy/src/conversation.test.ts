/**
 * Each protocol's wire history as loopguard messages: user turns, steps with reasoning, text and
 * calls, and tool results folded into their calls, under wire-position ids; and the two rewrites.
 */
import { toolPartsOf, type AssistantMessage } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { chatProtocol } from "./protocols/chat.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"
import { croppedCut, upstreamBody } from "./rewrite.js"
import { judgeRequest } from "./verdict.js"
import { CUT_MARK, cutNotice } from "./notices.js"

const chat = {
  model: "m",
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "fix it" },
    { role: "assistant", content: "Looking.", reasoning_content: "think", tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "a.txt" },
    { role: "assistant", content: "Done." }
  ],
  tools: [{ type: "function", function: { name: "bash" } }]
}

const responses = {
  model: "m",
  instructions: "sys",
  input: [
    { type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] },
    { type: "reasoning", summary: [{ type: "summary_text", text: "think" }] },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking." }] },
    { type: "function_call", call_id: "c1", name: "bash", arguments: '{"command":"ls"}' },
    { type: "function_call_output", call_id: "c1", output: "a.txt" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] }
  ],
  tools: [{ type: "function", name: "bash" }]
}

const messages = {
  model: "m",
  system: [{ type: "text", text: "sys" }],
  messages: [
    { role: "user", content: "fix it" },
    { role: "assistant", content: [{ type: "thinking", thinking: "think" }, { type: "text", text: "Looking." }, { type: "tool_use", id: "c1", name: "bash", input: { command: "ls" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "a.txt" }] },
    { role: "assistant", content: "Done." }
  ],
  tools: [{ name: "bash" }]
}

describe.each([
  ["chat", chatProtocol, chat],
  ["responses", responsesProtocol, responses],
  ["messages", messagesProtocol, messages]
] as const)("%s", (_, protocol, body) => {
  test("the history: one user turn, a step with reasoning, text and a completed call, a final step", () => {
    const c = protocol.conversation(body)
    expect(c.system).toBe("sys")
    expect(c.firstUser).toBe("fix it")
    expect(c.tools).toEqual(["bash"])
    expect(c.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
    const step = c.messages[1] as AssistantMessage
    expect(step.parts.filter((p) => p.type !== "tool")).toEqual([{ type: "reasoning", text: "think" }, { type: "text", text: "Looking." }])
    expect(toolPartsOf(step)).toEqual([{ type: "tool", callId: "c1", name: "bash", input: { command: "ls" }, state: "completed", output: "a.txt" }])
    expect((c.messages[2] as AssistantMessage).step).toBe(1)
    // The same body gives the same ids: requests and replicas agree.
    expect(protocol.conversation(body).messages.map((m) => m.id)).toEqual(c.messages.map((m) => m.id))
  })

  test("a reminder placed before a step and at the end; a cut reply cropped to its notice", () => {
    const cutBody = protocol.mapAssistantText(body, (t) => (t === "Done." ? `Done. Done. Done.${cutNotice("a block")}` : null))
    const at = Number(protocol.conversation(cutBody).messages[2]!.id.slice(1))
    const out = upstreamBody(protocol, cutBody, { inserts: [{ before: at, kind: "loop-remind", text: "REMINDER" }, { before: null, kind: "note", text: "NOTE" }], cropCuts: true, toolsOff: false })
    const again = protocol.conversation(out)
    // In wire order: the reminder before the step it was placed before, the note after everything.
    const wire = JSON.stringify(out)
    expect(wire.indexOf("REMINDER")).toBeGreaterThan(wire.indexOf("a.txt"))
    expect(wire.indexOf("REMINDER")).toBeLessThan(wire.indexOf(CUT_MARK))
    expect(wire.indexOf("NOTE")).toBeGreaterThan(wire.indexOf(CUT_MARK))
    const last = again.messages.filter((m) => m.role === "assistant").at(-1) as AssistantMessage
    expect(last.parts).toEqual([{ type: "text", text: croppedCut(cutNotice("a block"))! }])
    // The client's body is not changed in place.
    expect(JSON.stringify(body)).not.toContain("REMINDER")
  })
})

describe("tool arguments nested past any tool's need", () => {
  const deep = (depth: number) => `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`
  test("read as their own text, so judging the step cannot overflow the stack; shallow ones as JSON", () => {
    const body = (args: string) => ({ model: "m", messages: [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: args } }] }] })
    const inputOf = (args: string) => toolPartsOf(chatProtocol.conversation(body(args)).messages[1] as AssistantMessage)[0]!.input
    expect(inputOf(deep(50_000))).toBe(deep(50_000))
    expect(inputOf(deep(10))).toEqual(JSON.parse(deep(10)))
    const messages = chatProtocol.conversation(body(deep(50_000))).messages
    expect(() => judgeRequest(messages, DEFAULT_CONFIG)).not.toThrow()
  })

  test("an input object nested that deep (Messages, Gemini) is replaced by a note saying so", () => {
    let input: unknown = {}
    for (let i = 0; i < 5_000; i++) input = { a: input }
    const conversation = messagesProtocol.conversation({ model: "m", messages: [{ role: "user", content: "x" }, { role: "assistant", content: [{ type: "tool_use", id: "t", name: "bash", input }] }] })
    expect(toolPartsOf(conversation.messages[1] as AssistantMessage)[0]!.input).toBe("[arguments nested past 200 levels]")
  })
})

describe("tool results without an error flag (Chat, Responses)", () => {
  const refused = (n: number) => ({
    model: "m",
    messages: [
      { role: "user", content: "rename the helper" },
      ...Array.from({ length: n }, (_, i) => [
        { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "edit", arguments: JSON.stringify({ path: "src/util.py", old_string: `def helper${i}(`, new_string: "def run(" }) } }] },
        { role: "tool", tool_call_id: `c${i}`, content: `No replacement was performed, old_string \`def helper${i}(\` did not appear verbatim in src/util.py.` }
      ]).flat()
    ]
  })
  test("are read as the audit reads a trace's: a refused edit failed, a printed exit code counts", () => {
    const parts = chatProtocol.conversation(refused(1)).messages.flatMap((m) => (m.role === "assistant" ? toolPartsOf(m) : []))
    expect(parts.map((p) => p.state)).toEqual(["error"])
    const printed = chatProtocol.conversation({ model: "m", messages: [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: '{"command":"make"}' } }] }, { role: "tool", tool_call_id: "c", content: "boom\nExit code: 2" }] })
    expect(printed.messages.flatMap((m) => (m.role === "assistant" ? toolPartsOf(m) : [])).map((p) => [p.state, p.exitCode])).toEqual([["error", 2]])
  })
  test("an edit refused again and again with other old strings is stopped, as the audit stops it", () => {
    const verdicts = [3, 5, 6, 8].map((n) => judgeRequest(chatProtocol.conversation(refused(n)).messages, DEFAULT_CONFIG).action)
    expect(verdicts.at(-1)).toBe("stop")
  })
})
