import { describe, expect, test } from "bun:test"
import type { ModelMessage } from "ai"
import { endOfRun } from "./agent-report.js"
import { croppedSteps, tagNewestStep, withoutSteps } from "./request-messages.js"
import { replyOfStep, type AnyStep } from "./step-reply.js"

const usage = (input?: number, output?: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input !== undefined && output !== undefined ? input + output : undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined }
})

/** An AI SDK step result with the fields the helpers read. */
const step = (content: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): AnyStep =>
  ({ content, finishReason: "tool-calls", usage: usage(10, 5), model: { provider: "p.chat", modelId: "m" }, providerMetadata: undefined, toolCalls: content.filter((c) => c["type"] === "tool-call"), ...extra }) as unknown as AnyStep

describe("replyOfStep", () => {
  test("parts in order; each call carries its result (the printed text of a result object) and exit code, or its error", () => {
    const reply = replyOfStep(
      step([
        { type: "reasoning", text: "think" },
        { type: "text", text: "running" },
        { type: "tool-call", toolCallId: "a", toolName: "bash", input: { command: "npm test" } },
        { type: "tool-call", toolCallId: "b", toolName: "read", input: { path: "x" } },
        { type: "tool-call", toolCallId: "c", toolName: "ask", input: {} },
        { type: "tool-result", toolCallId: "a", toolName: "bash", input: {}, output: { stdout: "1 failing", exitCode: 1 } },
        { type: "tool-error", toolCallId: "b", toolName: "read", input: {}, error: new Error("no such file") }
      ]),
      3,
      "u"
    )
    expect(reply).toEqual({
      role: "assistant",
      id: "step-3",
      parentId: "u",
      model: "m",
      step: 3,
      finish: "tool-calls",
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      parts: [
        { type: "reasoning", text: "think" },
        { type: "text", text: "running" },
        { type: "tool", callId: "a", name: "bash", input: { command: "npm test" }, state: "completed", output: "1 failing", exitCode: 1 },
        { type: "tool", callId: "b", name: "read", input: { path: "x" }, state: "error", error: "no such file" },
        { type: "tool", callId: "c", name: "ask", input: {}, state: "pending" }
      ]
    })
  })

  test("a result that prints nothing recognisable is compared as JSON; usage the server did not send is left out", () => {
    const reply = replyOfStep(step([{ type: "tool-call", toolCallId: "a", toolName: "t", input: {} }, { type: "tool-result", toolCallId: "a", toolName: "t", input: {}, output: { rows: [1, 2] } }], { usage: usage(), finishReason: "other" }), 0, "u")
    expect([reply.parts[0], reply.usage, reply.finish]).toEqual([{ type: "tool", callId: "a", name: "t", input: {}, state: "completed", output: '{"rows":[1,2]}' }, {}, "other"])
  })
})

describe("request messages", () => {
  test("the newest step's messages are tagged (a steering message after them is skipped); cropped steps leave the request", () => {
    const tags = new WeakMap<object, number>()
    const prompt: ModelMessage = { role: "user", content: "go" }
    const a0: ModelMessage = { role: "assistant", content: "a0" }
    const t0: ModelMessage = { role: "tool", content: [] }
    const a1: ModelMessage = { role: "assistant", content: "loop loop" }
    const steer: ModelMessage = { role: "user", content: "stop repeating" }
    tagNewestStep([prompt, a0, t0], 0, tags)
    tagNewestStep([prompt, a0, t0, a1, steer], 1, tags)
    expect([tags.get(a0), tags.get(t0), tags.get(a1), tags.has(steer), tags.has(prompt)]).toEqual([0, 0, 1, false, false])
    expect(withoutSteps([prompt, a0, t0, a1, steer], new Set([1]), tags)).toEqual([prompt, a0, t0, steer])
    // A cropped tail must not leave the request ending on the model's own reply.
    expect(withoutSteps([prompt, a0, t0, a1], new Set([1]), tags)).toEqual([prompt, a0, t0])
    expect(withoutSteps([prompt, a0, a1], new Set([1]), tags)).toEqual([prompt, a0, { role: "user", content: "Continue." }])
    expect(croppedSteps([], [])).toEqual(new Set())
  })
})

describe("endOfRun", () => {
  test("a run loopguard did not stop ends as its last step says", () => {
    const last = (extra: Record<string, unknown>) => endOfRun(step([{ type: "text", text: "x" }], { toolCalls: [], ...extra }), 4)
    expect(last({ finishReason: "stop" })).toBeNull()
    expect(last({ finishReason: "other", providerMetadata: { loopguard: { tripped: "text-repeat" } } })?.reason).toBe("text_repeat")
    expect(last({ finishReason: "error", providerMetadata: { loopguard: { tripped: "chunk-timeout", timeoutMs: 9 } } })).toEqual({ reason: "model_error", step: 4, error: { tag: "ChunkTimeout", message: "the stream went silent for 9 ms" } })
    expect(last({ finishReason: "length" })?.reason).toBe("output_length")
    expect(last({ finishReason: "tool-calls", toolCalls: [{}] })?.reason).toBe("max_steps")
    expect(endOfRun(undefined, -1)).toBeNull()
  })
})
