/**
 * End to end, so that a regression shows: the
 * per-step timeout and the token budget in the running loop, judged from what the scripted server
 * saw (requests made, the stalled request closed by the client).
 */
import { repeatLoop, textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness, noRetries } from "./harness.js"

const turn = Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "b", prompt: "Work on it" }) })

const ls: ToolDefinition = {
  spec: { name: "ls", description: "list", inputSchema: { type: "object", properties: { dir: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: `listing of ${String(input["dir"])}` })
}

describe("per-step timeout in the running loop", () => {
  it.live("a step that streams past loop.stepTimeoutMs ends the run `timeout`; the stalled request is closed", () => Effect.gen(function* () {
    const stalled = { ...textStream("I am thinking about this for a very long time", { chunkSize: 8 }), stallAfterChunks: 2 }
    const h = yield* harness([stalled, textStream("never sent")], { config: (c) => ({ ...noRetries(c), loop: { ...c.loop, stepTimeoutMs: 800 } }) })
    const result = yield* h.provide(turn)
    expect(result.report.reason).toBe("timeout")
    expect(result.exit?.error?.tag).toBe("StepTimeoutError")
    expect(h.server.requests.length).toBe(1)
    // The client gave the request up: the server saw the connection close before the stall ended.
    for (let i = 0; i < 50 && !h.server.requests[0]!.closedEarly; i++) yield* Effect.sleep("100 millis")
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }), 30_000)
})

describe("token budget in the running loop (hard cap)", () => {
  it.live("the run stops `budget_tokens` once reported usage reaches loop.tokenBudget, before another request", () => Effect.gen(function* () {
    const step = (i: number) => toolCallStream("ls", { dir: `d${i}` }, { id: `c${i}`, usage: { prompt_tokens: 300, completion_tokens: 100 } })
    const h = yield* harness([step(1), step(2), step(3), step(4), textStream("done")], {
      tools: [ls],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "hard", tokenBudget: 1000 } })
    })
    const result = yield* h.provide(turn)
    expect(result.report.reason).toBe("budget_tokens")
    // 400 tokens a step: after three steps (1200) the budget is spent; no fourth request is made.
    expect(h.server.requests.length).toBe(3)
  }), 30_000)
})

describe("token budget counts what a cut step streamed", () => {
  const SENTENCE = "the build failed so I will run the tests again now"
  /** A reply looping in text until the repetition guard cuts it: about 250 tokens streamed, and no usage (the finish never comes). */
  const cutLoop = () => repeatLoop(SENTENCE, 300, { chunkDelayMs: 1 })

  it.live("budget 100, two cut loops of ~200 tokens each: the run stops `budget_tokens` after the first, its tokens estimated", () => Effect.gen(function* () {
    const h = yield* harness([cutLoop(), cutLoop(), textStream("done")], { config: (c) => ({ ...c, loop: { ...c.loop, capMode: "hard", tokenBudget: 100 } }) })
    const result = yield* h.provide(turn)
    expect(result.report.reason).toBe("budget_tokens")
    expect(h.server.requests.length).toBe(1)
    expect(result.report.tokens.estimated).toBe(true)
    expect(result.report.tokens.output).toBeGreaterThanOrEqual(100)
    expect(result.report.incidents.some((i) => i.detector === "text-repeat" && i.action === "cut")).toBe(true)
  }), 30_000)

  it.live("without a budget both cut loops run, and the report counts both (it used to say 0)", () => Effect.gen(function* () {
    const h = yield* harness([cutLoop(), cutLoop(), textStream("done")])
    const result = yield* h.provide(turn)
    expect(h.server.requests.length).toBe(3)
    expect(result.report.incidents.filter((i) => i.detector === "text-repeat" && i.action === "cut").length).toBe(2)
    expect(result.report.tokens.output).toBeGreaterThanOrEqual(200)
    expect(result.report.tokens.estimated).toBe(true)
  }), 30_000)
})

describe("a step cut short is billed for its prompt too", () => {
  const SENTENCE = "the build failed so I will run the tests again now"
  /** About 2,000 tokens of notes in the prompt: what every request of the run is billed for before a word comes back. */
  const NOTES = Array.from({ length: 400 }, (_, i) => `note ${i}: the parser reads line ${i * 7} of module m${i % 13}.`).join("\n")

  it.live("a cut loop's prompt is estimated from its request, and the step line's figure (step.finished) is the report's", () => Effect.gen(function* () {
    const h = yield* harness([repeatLoop(SENTENCE, 300, { chunkDelayMs: 1 }), textStream("done", { usage: { prompt_tokens: 40, completion_tokens: 1 } })])
    const result = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "p", prompt: `Work on it.\n${NOTES}` }) }))
    expect(result.report.incidents.some((i) => i.detector === "text-repeat" && i.action === "cut")).toBe(true)
    // The cut step: its prompt estimated (NOTES alone is about 20,000 characters), not 0; the last step as the server said.
    expect(result.report.tokens.input).toBeGreaterThan(40 + 2_000)
    expect(result.report.tokens.estimated).toBe(true)
    const finished = h.events.flatMap((e) => (e.type === "step.finished" && e.tokens !== undefined ? [e.tokens.total] : []))
    expect(finished.length).toBe(2)
    expect(finished.reduce((a, b) => a + b, 0)).toBe(result.report.tokens.total)
  }), 30_000)

  it.live("a step paused by its tool's failure keeps the usage the server sent with the call", () => Effect.gen(function* () {
    const usage = { prompt_tokens: 300, completion_tokens: 10 }
    const failing: ToolDefinition = {
      spec: { name: "bash", description: "run", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      run: async () => ({ state: "completed", output: "FAIL src/sum.test.ts\nexit code 1", exitCode: 1 })
    }
    const steps = [1, 2, 3, 4, 5, 6, 7].map((i) => toolCallStream("bash", { command: "npm test" }, { id: `t${i}`, usage }))
    const h = yield* harness(steps, { tools: [failing], config: (c) => ({ ...c, tryBest: { ...c.tryBest, enabled: true } }) })
    const result = yield* h.provide(turn)
    expect(result.report.reason).toBe("try_best_paused")
    // Every step's request was billed whole, the paused one too: 310 tokens each, none of them estimated.
    expect(result.report.tokens).toMatchObject({ input: 300 * result.report.stepsUsed, output: 10 * result.report.stepsUsed })
    expect(result.report.tokens.estimated).toBeUndefined()
  }), 30_000)
})
