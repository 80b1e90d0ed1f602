import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { AssistantMessage, AssistantPart, ToolPart, ToolState } from "../model/message.js"
import type { FinishReason } from "../model/stream.js"
import { classifyStep, hasPendingClientTool } from "./classify-step.js"

const USER = "u2"

const reply = (over: Partial<AssistantMessage> & { parts?: ReadonlyArray<AssistantPart> }): AssistantMessage => ({
  role: "assistant",
  id: "a1",
  parentId: USER,
  parts: [],
  step: 0,
  ...over
})

const text = (t: string, synthetic?: boolean): AssistantPart =>
  synthetic === undefined ? { type: "text", text: t } : { type: "text", text: t, synthetic }
const reasoning = (t: string): AssistantPart => ({ type: "reasoning", text: t })
const tool = (state: ToolState, extra: Partial<ToolPart> = {}): ToolPart => ({
  type: "tool",
  callId: "c1",
  name: "bash",
  input: { command: "ls" },
  state,
  ...extra
})

const classOf = (r: AssistantMessage, modelId?: string) =>
  classifyStep(modelId === undefined ? { reply: r, currentUserId: USER } : { reply: r, currentUserId: USER, modelId }).class

describe("continue", () => {
  test("a pending or running client tool holds the loop, whatever the finish", () => {
    for (const state of ["pending", "running"] as const) {
      for (const finish of ["stop", "length", "error", "content-filter", "other", "unknown"] as const) {
        expect(classOf(reply({ finish, parts: [text("done"), tool(state)] }))).toBe("continue")
      }
    }
    expect(hasPendingClientTool(reply({ parts: [tool("running")] }))).toBe(true)
  })

  test("a tool part in error state does not hold the loop", () => {
    const r = reply({ finish: "stop", parts: [text("I gave up on the tool."), tool("error", { error: "timeout" })] })
    expect(hasPendingClientTool(r)).toBe(false)
    expect(classOf(r)).toBe("final")
  })

  test("a provider-executed tool part does not hold the loop", () => {
    const r = reply({ finish: "stop", parts: [tool("pending", { providerExecuted: true }), text("answer")] })
    expect(hasPendingClientTool(r)).toBe(false)
    expect(classOf(r)).toBe("final")
  })

  test("a reply that predates the current user message continues", () => {
    expect(classOf(reply({ parentId: "u1", finish: "stop", parts: [text("old answer")] }))).toBe("continue")
  })

  test("no finish yet continues", () => {
    expect(classOf(reply({ parts: [text("partial")] }))).toBe("continue")
  })

  test("finish = tool-calls with tool parts continues, even if every tool errored", () => {
    expect(classOf(reply({ finish: "tool-calls", parts: [tool("completed")] }))).toBe("continue")
    expect(classOf(reply({ finish: "tool-calls", parts: [tool("error")] }))).toBe("continue")
  })

  test("completed client tool results with a mislabelled stop still reach the model", () => {
    expect(classOf(reply({ finish: "stop", parts: [text("running it"), tool("completed")] }))).toBe("continue")
  })
})

describe("tool-calls without a tool part (dual check)", () => {
  const markups = [
    '<invoke name="bash"><parameter name="command">ls</parameter></invoke>',
    "<function_calls>\n<invoke name=\"x\">",
    '<tool_call>{"name": "bash", "arguments": {}}</tool_call>',
    "<use_mcp_tool><server_name>s</server_name><tool_name>t</tool_name></use_mcp_tool>",
    "<function=bash><parameter=command>ls</parameter></function>",
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"a":1}',
    "<tool_use>bash</tool_use>",
    '{"tool_calls": [{"id": "1", "function": {"name": "bash"}}]}'
  ]
  for (const m of markups) {
    test(`markup → text-tool-call: ${m.slice(0, 30)}`, () => {
      expect(classOf(reply({ finish: "tool-calls", parts: [text(`Let me run it.\n${m}`)] }))).toBe("text-tool-call")
    })
  }

  test("no markup → dropped-tool-call", () => {
    expect(classOf(reply({ finish: "tool-calls", parts: [text("I will now run the tests.")] }))).toBe("dropped-tool-call")
    expect(classOf(reply({ finish: "tool-calls", parts: [] }))).toBe("dropped-tool-call")
  })

  test("markup only counts in non-synthetic text", () => {
    expect(classOf(reply({ finish: "tool-calls", parts: [text("<tool_call>x</tool_call>", true)] }))).toBe("dropped-tool-call")
  })
})

describe("failed and filtered", () => {
  test("a reply carrying an error fails, even without a finish", () => {
    expect(classOf(reply({ error: { message: "boom" }, parts: [text("partial")] }))).toBe("failed")
    expect(classOf(reply({ error: { message: "boom" }, finish: "stop", parts: [text("ok")] }))).toBe("failed")
  })
  test("finish = error fails", () => {
    expect(classOf(reply({ finish: "error", parts: [text("some text")] }))).toBe("failed")
  })
  test("finish = content-filter is filtered even with text", () => {
    expect(classOf(reply({ finish: "content-filter", parts: [text("I was saying")] }))).toBe("filtered")
  })
})

describe("unfinished", () => {
  test("finish = unknown is never final", () => {
    expect(classOf(reply({ finish: "unknown", parts: [text("a full looking answer.")] }))).toBe("unfinished")
    expect(classOf(reply({ finish: "unknown", parts: [] }))).toBe("unfinished")
  })
  test("finish = length is unfinished (never final)", () => {
    expect(classOf(reply({ finish: "length", parts: [text("truncated ans")] }))).toBe("unfinished")
  })
})

describe("think-only, invalid, final", () => {
  test("reasoning only is think-only for a claude model", () => {
    const r = reply({ finish: "stop", model: "anthropic/claude-sonnet-4", parts: [reasoning("hmm, let me think")] })
    expect(classOf(r)).toBe("think-only")
  })
  test("reasoning only is final for gpt-N models", () => {
    const r = reply({ finish: "stop", parts: [reasoning("the answer is 4")] })
    expect(classOf(r, "gpt-4o")).toBe("final")
    expect(classOf(r, "openai/gpt-5-mini")).toBe("final")
    expect(classOf(r, "GPT-4.1")).toBe("final")
    expect(classOf({ ...r, model: "openai/gpt-4o" })).toBe("final")
    // gpt-oss is not gpt-<digit>, and the pattern is anchored at a path segment
    expect(classOf(r, "gpt-oss-120b")).toBe("think-only")
    expect(classOf(r, "mygpt-4")).toBe("think-only")
  })
  test("whitespace-only text with no reasoning is invalid (empty output)", () => {
    const c = classifyStep({ reply: reply({ finish: "stop", parts: [text("  \n ")] }), currentUserId: USER })
    expect(c).toEqual({ class: "invalid", reason: "empty output" })
  })
  test("synthetic text does not count as an answer", () => {
    expect(classOf(reply({ finish: "stop", parts: [text("Try-best loop detected", true)] }))).toBe("invalid")
  })
  test("non-empty text is final; finish = other is degraded", () => {
    const ok = classifyStep({ reply: reply({ finish: "stop", parts: [text("Done.")] }), currentUserId: USER })
    expect(ok.class).toBe("final")
    expect(ok.degraded).toBe(false)
    const other = classifyStep({ reply: reply({ finish: "other", parts: [text("Done.")] }), currentUserId: USER })
    expect(other.class).toBe("final")
    expect(other.degraded).toBe(true)
  })
  test("markup in a stop reply is left to the final answer (tool-call markup counts only when finish = tool-calls)", () => {
    expect(classOf(reply({ finish: "stop", parts: [text("Use <tool_call> tags like this.")] }))).toBe("final")
  })
})

describe("properties", () => {
  const finishArb = fc.constantFrom<FinishReason | undefined>(
    "stop", "length", "tool-calls", "content-filter", "error", "other", "unknown", undefined
  )
  const partArb: fc.Arbitrary<AssistantPart> = fc.oneof(
    fc.string().map((t) => text(t)),
    fc.string().map((t) => reasoning(t)),
    fc.record({
      state: fc.constantFrom<ToolState>("pending", "running", "completed", "error"),
      providerExecuted: fc.boolean()
    }).map(({ state, providerExecuted }) => tool(state, { providerExecuted }))
  )
  const replyArb = fc.record({
    finish: finishArb,
    parts: fc.array(partArb, { maxLength: 4 }),
    parentId: fc.constantFrom(USER, "u1"),
    model: fc.constantFrom("gpt-4o", "claude-3-7", "qwen3")
  }).map(({ finish, parts, parentId, model }) =>
    finish === undefined ? reply({ parts, parentId, model }) : reply({ finish, parts, parentId, model })
  )

  test("unknown, length and missing finishes are never final", () => {
    fc.assert(
      fc.property(replyArb, (r) => {
        const c = classifyStep({ reply: r, currentUserId: USER })
        if (r.finish === undefined || r.finish === "unknown" || r.finish === "length") expect(c.class).not.toBe("final")
      })
    )
  })

  test("a pending client tool always means continue; degraded only on final", () => {
    fc.assert(
      fc.property(replyArb, (r) => {
        const c = classifyStep({ reply: r, currentUserId: USER })
        if (hasPendingClientTool(r)) expect(c.class).toBe("continue")
        if (c.degraded === true) expect(c.class).toBe("final")
        expect(c.reason.length).toBeGreaterThan(0)
      })
    )
  })
})
