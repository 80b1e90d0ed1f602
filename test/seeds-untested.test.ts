/**
 * Behaviours that worked without a test: each test here fails when its behaviour is removed
 * (checked by removing it). Over HTTP to the scripted server through the real AI SDK provider.
 */
import { chunksOf, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
import { attemptsOf, fastRetry, httpError, processStep } from "./retry-faults/helpers.js"

describe("a fresh repetition monitor for each attempt of a step", () => {
  // 12 copies do not repeat enough to be cut; 24 would. The replay must not add the failed
  // attempt's copies to its own.
  const SENTENCE = "I will check the config file again now. "
  const twelve = SENTENCE.repeat(12)
  const pieces = chunksOf(twelve, 40)

  it.live("a replay after a reset streams the same 12 copies again, and is not cut as a repetition", () => Effect.gen(function* () {
    const script: Array<ScriptedResponse> = [
      { type: "stream", chunks: pieces.map((text) => ({ text })), resetAfterChunks: pieces.length },
      { type: "stream", chunks: pieces.map((text) => ({ text })), finish: "stop" }
    ]
    const h = yield* harness(script, { config: fastRetry() })
    const { result } = yield* h.provide(processStep())
    expect(h.server.requests).toHaveLength(2)
    expect(result.outcome.type).toBe("continue")
    expect(textOf(result.message)).toBe(twelve)
    expect(h.events.some((e) => e.type === "incident" && e.detector === "text-repeat")).toBe(false)
  }), 30_000)
})

describe("the request-phase retry count starts again after a stream-phase replay", () => {
  it.live("request.maxRetries 2: two 500s, a mid-stream reset, two more 500s, then the answer", () => Effect.gen(function* () {
    const script: Array<ScriptedResponse> = [
      httpError(500),
      httpError(500),
      { ...textStream("Partial answer that breaks off", { chunkSize: 4 }), resetAfterChunks: 2 },
      httpError(500),
      httpError(500),
      textStream("The answer.")
    ]
    const h = yield* harness(script, { config: fastRetry({ request: { maxRetries: 2 } }) })
    const { result } = yield* h.provide(processStep())
    expect(h.server.requests).toHaveLength(6)
    expect(attemptsOf(h.events).map((a) => [a.phase, a.attempt])).toEqual([
      ["request", 1],
      ["request", 2],
      ["stream", 1],
      // Counted afresh: a new model call after the replay.
      ["request", 1],
      ["request", 2]
    ])
    expect(textOf(result.message)).toBe("The answer.")
  }), 30_000)
})

describe("the error-storm breaker starts afresh on a new user turn", () => {
  const failing: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async (input) => ({ state: "completed", output: `${String(input["command"])}: failed`, exitCode: 1 })
  }
  const threeFailures = (turn: string) => ["pip install parser", "docker compose up -d", "systemctl start web"].map((c, i) => toolCallStream("bash", { command: `${c} ${turn}` }, { id: `${turn}${i}` }))

  it.live("three failures in each of two turns: each turn's breaker degrades; the second does not hand back", () => Effect.gen(function* () {
    const script = [...threeFailures("a"), textStream("First turn: the builds fail."), ...threeFailures("b"), textStream("Second turn: still failing.")]
    const h = yield* harness(script, { tools: [failing] })
    const turn = (prompt: string) => Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt }) })
    const first = yield* h.provide(turn("Build it."))
    const second = yield* h.provide(turn("Try the build again."))
    const breaker = (r: typeof first) => r.report.incidents.filter((i) => i.detector === "breaker").map((i) => i.action)
    expect(breaker(first)).toEqual(["degrade"])
    expect(breaker(second)).toEqual(["degrade"])
    expect(second.report.reason).not.toBe("circuit_open")
  }), 30_000)
})
