import { repeatLoop, textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { SessionProcessor, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { requestTokens } from "../packages/effect/src/llm/request-tokens.js"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness, noRetries } from "./harness.js"

const processOnce = (text = "go") =>
  Effect.gen(function* () {
    const processor = yield* SessionProcessor
    const store = yield* SessionStore
    yield* store.append("s", { role: "user", id: "u0", text })
    return yield* processor.process({
      sessionId: "s",
      parentId: "u0",
      step: 0,
      request: { messages: [{ role: "user", text }], tools: [] },
      messageId: (n) => `a${n}`
    })
  })

const SENTENCE = "I will now check the configuration file again to be sure." // 11 tokens

describe("SessionProcessor over HTTP with the repetition guard", () => {
  it.live("a looping generation is cut at the 20th repetition and the server sees the request closed", () => Effect.gen(function* () {
    const h = yield* harness([repeatLoop(SENTENCE, 60, { chunkSize: 7, chunkDelayMs: 2 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("text-repeat")
    if (r.outcome.type !== "text-repeat") return
    expect(r.outcome.period).toBe(11)
    expect(r.outcome.token).toBe(11 * 20 - 1)
    // What streamed before the cut is kept.
    const kept = textOf(r.message)
    expect(kept.split("configuration").length - 1).toBeGreaterThanOrEqual(20)
    expect(kept.split("configuration").length - 1).toBeLessThan(60)
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }))

  it.live("a call whose arguments loop (a file written over and over) is cut as it streams and never runs", () => Effect.gen(function* () {
    const fragment = "function step() {\n  counter += 1\n  render(counter)\n}\n\n"
    const writes: Array<unknown> = []
    const write: ToolDefinition = {
      spec: { name: "write", description: "write a file", inputSchema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } } },
      run: async (input) => (writes.push(input), { state: "completed", output: "written" })
    }
    const h = yield* harness([toolCallStream("write", { path: "src/loop.ts", content: fragment.repeat(300) }, { pieces: 120, chunkDelayMs: 1 })], { tools: [write] })
    const r = yield* h.provide(
      Effect.gen(function* () {
        const processor = yield* SessionProcessor
        yield* (yield* SessionStore).append("s", { role: "user", id: "u0", text: "write it" })
        return yield* processor.process({ sessionId: "s", parentId: "u0", step: 0, request: { messages: [{ role: "user", text: "write it" }], tools: [write.spec] }, messageId: (n) => `a${n}` })
      })
    )
    expect(r.outcome.type).toBe("text-repeat")
    expect(writes).toEqual([])
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }))

  it.live("a 43-word paragraph ×400 (about 97 KB) is cut by the long-period rule within 5 copies", () => Effect.gen(function* () {
    const paragraph =
      "We need to update the parser so that the nested table rows keep their alignment when the header holds merged cells, then rerun the formatter tests and compare the output with the expected fixture files once more before we touch the renderer again."
    expect(paragraph.split(" ")).toHaveLength(43)
    const h = yield* harness([repeatLoop(paragraph, 400, { chunkSize: 64, chunkDelayMs: 1 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("text-repeat")
    if (r.outcome.type !== "text-repeat") return
    expect(r.outcome.trip.rule).toBe("long")
    expect(r.outcome.period).toBeNull()
    const kept = textOf(r.message)
    expect(kept.split("renderer again.").length - 1).toBeLessThanOrEqual(5)
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }), 30_000)

  it.live("19 repetitions of the sentence do not trip", () => Effect.gen(function* () {
    const h = yield* harness([textStream(Array(19).fill(SENTENCE).join(" ") + " Done.", { chunkSize: 5 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("continue")
    expect(r.message.finish).toBe("stop")
  }))

  it.live("a long healthy generation is never cut", () => Effect.gen(function* () {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31)
    const text = Array.from({ length: 6000 }, () => words[Math.floor(rnd() * words.length)]).join(" ")
    const h = yield* harness([textStream(text, { chunkSize: 23 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("continue")
    expect(textOf(r.message)).toBe(text)
    expect(h.server.requests[0]!.closedEarly).toBe(false)
  }))

  it.live("a CJK loop is cut", () => Effect.gen(function* () {
    const h = yield* harness([textStream("我们需要再检查一下这个配置文件。".repeat(40), { chunkSize: 3, chunkDelayMs: 2 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("text-repeat")
    if (r.outcome.type === "text-repeat") expect(r.outcome.period).toBe(16)
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }))

  it.live("one CJK character written 200 times does not trip (one distinct token)", () => Effect.gen(function* () {
    const h = yield* harness([textStream("好".repeat(200), { chunkSize: 9 })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("continue")
  }))

  it.live("reasoning deltas feed the same guard", () => Effect.gen(function* () {
    const h = yield* harness([textStream("Final answer.", { chunkSize: 9, reasoning: Array(25).fill(SENTENCE).join(" ") })])
    const r = yield* h.provide(processOnce())
    expect(r.outcome.type).toBe("text-repeat")
  }))

  it.live("silence past the chunk timeout ends the step with a typed stream error", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "stream", chunks: [{ text: "Working on it" }, { text: " now" }], finish: "stop", stallAfterChunks: 1, stallMs: 5_000 }], {
      config: (c) => ({ ...noRetries(c), stream: { ...c.stream, chunkTimeoutMs: 250 } })
    })
    const started = Date.now()
    const r = yield* h.provide(processOnce())
    expect(Date.now() - started).toBeLessThan(4_000)
    expect(r.outcome.type).toBe("error")
    if (r.outcome.type === "error") {
      expect(r.outcome.error.name).toBe("ChunkTimeoutError")
      expect(r.outcome.error.phase).toBe("stream")
    }
    expect(textOf(r.message)).toBe("Working on it")
  }))

  it.live("a server that sends no usage is billed the request's estimate: the caller's tally when it gives one, else the request stringified", () => Effect.gen(function* () {
    const request = { messages: [{ role: "user" as const, text: "go" }], tools: [] }
    const run = (promptTokens?: () => number) =>
      Effect.gen(function* () {
        const h = yield* harness([textStream("Final answer.", { chunkSize: 5 })], { omitUsage: true })
        return yield* h.provide(
          Effect.gen(function* () {
            yield* (yield* SessionStore).append("s", { role: "user", id: "u0", text: "go" })
            return yield* (yield* SessionProcessor).process({ sessionId: "s", parentId: "u0", step: 0, request, messageId: (n) => `a${n}`, ...(promptTokens !== undefined ? { promptTokens } : {}) })
          })
        )
      })
    const tallied = yield* run(() => 4321)
    expect(tallied.usage?.estimated).toBe(true)
    expect(tallied.usage?.inputTokens).toBe(4321)
    const stringified = yield* run()
    expect(stringified.usage?.inputTokens).toBe(requestTokens(request))
  }))
})
