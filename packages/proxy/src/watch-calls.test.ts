/**
 * The calls a streamed reply's watch sees, in shapes some servers send: Chat Completions call deltas
 * without an `index` (Google's OpenAI-compatible endpoint), and Responses freeform calls whose input
 * is text, whole only once their item is done.
 */
import { describe, expect, test } from "bun:test"
import { cutAtLength, cutOffCall } from "./protocol.js"
import { chatProtocol } from "./protocols/chat.js"
import { responsesProtocol } from "./protocols/responses.js"
import { parseEvent } from "./sse.js"

const see = (watch: ReturnType<typeof chatProtocol.watch>, events: ReadonlyArray<object>, named = false) => {
  for (const e of events) watch.see(parseEvent(`${named ? `event: ${(e as { type: string }).type}\n` : ""}data: ${JSON.stringify(e)}\n\n`))
}

describe("call deltas without an index (Chat Completions)", () => {
  test("each new id opens a call; a delta without an id continues the latest; a known id goes back to its call", () => {
    const watch = chatProtocol.watch({})
    const delta = (tool_calls: ReadonlyArray<object>) => ({ id: "c", choices: [{ index: 0, delta: { tool_calls } }] })
    see(watch, [
      delta([{ id: "call_a", type: "function", function: { name: "read", arguments: '{"path":' } }]),
      delta([{ function: { arguments: '"a"}' } }]),
      delta([{ id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"' } }]),
      delta([{ id: "call_b", function: { arguments: "}" } }])
    ])
    expect(watch.calls).toEqual([
      { id: "call_a", name: "read", args: '{"path":"a"}' },
      { id: "call_b", name: "read", args: '{"path":"b"}' }
    ])
    expect(cutOffCall(watch.calls)).toBeNull()
  })

  test("indexed deltas are read by their index, as before", () => {
    const watch = chatProtocol.watch({})
    const delta = (index: number, args: string, id?: string) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index, ...(id ? { id, function: { name: "ls", arguments: args } } : { function: { arguments: args } }) }] } }] })
    see(watch, [delta(0, "{", "call_1"), delta(1, "{", "call_2"), delta(0, "}"), delta(1, '"x":1}')])
    expect(watch.calls.map((c) => c.args)).toEqual(["{}", '{"x":1}'])
  })
})

describe("freeform calls (Responses custom_tool_call)", () => {
  const item = { type: "custom_tool_call", id: "ctc_1", call_id: "call_1", name: "apply_patch" }
  test("text input is whole once the item is done, not before; JSON is not asked of it", () => {
    const watch = responsesProtocol.watch({})
    see(watch, [{ type: "response.output_item.added", output_index: 0, item: { ...item, input: "" } }, { type: "response.custom_tool_call_input.delta", output_index: 0, delta: "*** Begin Patch\n" }], true)
    expect(cutOffCall(watch.calls)).toBe("apply_patch")
    see(watch, [{ type: "response.output_item.done", output_index: 0, item: { ...item, input: "*** Begin Patch\n*** End Patch", status: "completed" } }], true)
    expect(watch.calls).toEqual([{ id: "call_1", name: "apply_patch", args: "*** Begin Patch\n*** End Patch", freeform: { done: true } }])
    expect(cutOffCall(watch.calls)).toBeNull()
  })

  test("in a whole reply: a completed one is whole, one marked incomplete (cut by the output limit) is not", () => {
    const of = responsesProtocol.wholeCalls!.of
    expect(cutOffCall(of({ output: [{ ...item, input: "*** Begin Patch\n*** End Patch", status: "completed" }] }))).toBeNull()
    expect(cutOffCall(of({ output: [{ ...item, input: "*** Begin Pa", status: "incomplete" }] }))).toBe("apply_patch")
  })
})

describe("a reply cut at its length limit", () => {
  test("its last call with no argument text yet is cut off, not a call without arguments; a finished reply's is whole", () => {
    const calls = [
      { id: "a", name: "read", args: '{"path":"a"}' },
      { id: "b", name: "bash", args: "" }
    ]
    for (const finish of ["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"]) expect(cutOffCall(calls, cutAtLength(finish))).toBe("bash")
    for (const finish of ["tool_calls", "tool_use", "STOP", undefined]) expect(cutOffCall(calls, cutAtLength(finish))).toBeNull()
    expect(cutOffCall([{ id: "b", name: "bash", args: "" }, calls[0]!], true)).toBeNull()
  })
})
