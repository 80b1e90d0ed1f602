/**
 * GuardedRun fed AI SDK step objects directly: what a cut reply leads to with and without steering,
 * the cost budget's prices, and a failed call's tokens.
 */
import { describe, expect, test } from "bun:test"
import type { LoopguardAgentEvent } from "./events.js"
import { GuardedRun } from "./guarded-run.js"
import { resolveAgentOptions, type LoopguardAgentOptions } from "./options.js"
import type { AnyStep } from "./step-reply.js"

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined }
})

const LOOP = "I will check the file again. ".repeat(12)

/** A step result with the fields the run reads; `cut` marks it as the middleware marks a reply it cut. */
const step = (content: Array<Record<string, unknown>>, opts: { cut?: boolean; modelId?: string; tokens?: [number, number] } = {}): AnyStep =>
  ({
    content,
    finishReason: opts.cut === true ? "other" : content.some((c) => c["type"] === "tool-call") ? "tool-calls" : "stop",
    usage: usage(...(opts.tokens ?? [100, 50])),
    model: { provider: "p.chat", modelId: opts.modelId ?? "gpt-4o" },
    providerMetadata: opts.cut === true ? { loopguard: { tripped: "text-repeat" } } : undefined,
    toolCalls: content.filter((c) => c["type"] === "tool-call")
  }) as unknown as AnyStep

const runOf = (options: LoopguardAgentOptions = {}) => {
  const events: Array<LoopguardAgentEvent> = []
  const run = new GuardedRun(resolveAgentOptions({ sessionId: "s", ...options, onEvent: (e) => events.push(e) }), "fix the build")
  return { run, events }
}

const cutText = () => step([{ type: "text", text: LOOP }], { cut: true })

describe("a reply the repetition guard cut", () => {
  test("without steering and without tool calls the run ends there: a stop event, no reminder that could never be sent", () => {
    const { run, events } = runOf()
    const actions = run.feed(cutText(), false)
    expect(actions.steer).toBeNull()
    expect(actions.exit?.reason).toBe("text_repeat")
    expect(events.filter((e) => e.type === "reminder")).toEqual([])
    expect(events.filter((e) => e.type === "stop").map((e) => e.type === "stop" && e.reason)).toEqual(["text_repeat"])
    expect(run.exit?.error?.message).toContain("steering")
  })

  test("with steering the REMIND steers the next step and the run goes on", () => {
    const { run, events } = runOf()
    const actions = run.feed(cutText(), true)
    expect([actions.steer?.kind, actions.exit]).toEqual(["text-repeat-remind", null])
    expect(run.pending.reminders).toEqual([])
    expect(events.filter((e) => e.type === "reminder").map((e) => e.type === "reminder" && e.kind)).toEqual(["text-repeat-remind"])
  })

  test("with tool calls the loop goes on by itself: the REMIND rides on the next request, steering or not", () => {
    const { run } = runOf()
    const cutWithCall = step(
      [
        { type: "tool-call", toolCallId: "a", toolName: "bash", input: { command: "cat a.ts" } },
        { type: "tool-result", toolCallId: "a", toolName: "bash", input: {}, output: "x" },
        { type: "text", text: LOOP }
      ],
      { cut: true }
    )
    const actions = run.feed(cutWithCall, false)
    expect([actions.steer, actions.exit]).toEqual([null, null])
    expect(run.pending.reminders.map((r) => r.kind)).toEqual(["text-repeat-remind"])
  })
})

describe("the cost budget", () => {
  const answer = (modelId: string) => step([{ type: "text", text: "done" }], { modelId })

  test("a model with no price: one budget warning per run, saying how to price it", () => {
    const { run } = runOf({ loop: { costBudgetUsd: 1 } })
    run.feed(answer("local-llama"), false)
    run.feed(answer("local-llama"), false)
    const warnings = run.incidents.filter((i) => i.detector === "budget")
    expect(warnings.map((i) => i.action)).toEqual(["warn"])
    expect(String(warnings[0]!.detail?.["message"])).toContain("`prices` option")
  })

  test("a price given in `prices` makes the budget trip; without a budget there is no warning", () => {
    const { run } = runOf({ loop: { costBudgetUsd: 0.5 }, prices: { "Local-Llama": { inputPerMTok: 1000, outputPerMTok: 1000 } } })
    const actions = run.feed(answer("local-llama"), false)
    expect(run.incidents.filter((i) => i.detector === "budget")).toEqual([])
    // 150 tokens at $1000 per million: $0.15, then $0.30, $0.45, $0.60.
    expect(actions.exit).toBeNull()
    for (let i = 0; i < 3; i++) run.feed(answer("local-llama"), false)
    expect(run.exit?.reason).toBe("budget_cost")
    expect(runOf().run.incidents).toEqual([])
  })

  test("a bad price is refused by its path", () => {
    expect(() => resolveAgentOptions({ prices: { m: { inputPerMTok: -1 } } as never })).toThrow(/prices\.m\.inputPerMTok: Expected a value greater than or equal to 0.*prices\.m\.outputPerMTok: is missing/)
    expect(() => resolveAgentOptions({ prices: { m: { inputPerMTok: 1, outputPerMTok: 1, per: 2 } } as never })).toThrow(/prices\.m\.per: Expected no excess property/)
  })
})

test("a call whose stream failed mid-way: what it streamed is counted, estimated, and no step with it", () => {
  const { run } = runOf()
  run.feed(step([{ type: "text", text: "first" }]), false)
  run.spendFailed({ outputTokens: 40, estimated: true }, "gpt-4o")
  expect([run.meter.stepsUsed, run.meter.tokens.output, run.meter.tokens.estimated]).toEqual([1, 90, true])
})

test("the prompt's estimate is billed where the server gave no count: a cut step, a failed stream; never over the server's own count", () => {
  const { run } = runOf()
  // The middleware's estimate of what a cut step streamed, as it writes it: an output count and no input.
  const cut = step([{ type: "text", text: LOOP }], { cut: true })
  const cutUsage = { ...cut.usage, inputTokens: undefined, outputTokens: 80, totalTokens: undefined }
  const marked = { ...cut, usage: cutUsage, providerMetadata: { loopguard: { tripped: "text-repeat", usage: { outputTokens: 80, estimated: true } } } } as unknown as AnyStep
  run.feed(marked, true, () => 300)
  expect(run.meter.tokens).toEqual({ input: 300, output: 80, total: 380, estimated: true })
  run.spendFailed({ outputTokens: 40, estimated: true }, "gpt-4o", () => 300)
  expect(run.meter.tokens).toEqual({ input: 600, output: 120, total: 720, estimated: true })
  run.feed(step([{ type: "text", text: "done" }], { tokens: [7, 3] }), false, () => 300)
  expect(run.meter.tokens).toEqual({ input: 607, output: 123, total: 730, estimated: true })
})
