/** The guarded stream and the generate fold on hand-made part streams (no HTTP). */
import { describe, expect, test } from "bun:test"
import { collectGenerateResult } from "./collect.js"
import { DELTA_SLICE, guardStream } from "./guard-stream.js"
import type { StreamPart } from "./model-types.js"
import { resolveMiddlewareOptions, type LoopguardTrip } from "./options.js"

const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 9, text: 9, reasoning: undefined }
}
const finish = (unified: "stop" | "length" = "stop"): StreamPart => ({ type: "finish", finishReason: { unified, raw: unified }, usage: USAGE })
const text = (id: string, delta: string): StreamPart => ({ type: "text-delta", id, delta })
const reasoning = (id: string, delta: string): StreamPart => ({ type: "reasoning-delta", id, delta })

const from = (parts: ReadonlyArray<StreamPart>) =>
  new ReadableStream<StreamPart>({
    start(c) {
      for (const p of parts) c.enqueue(p)
      c.close()
    }
  })

const drain = async (stream: ReadableStream<StreamPart>) => {
  const out: Array<StreamPart> = []
  for await (const p of stream as unknown as AsyncIterable<StreamPart>) out.push(p)
  return out
}

const guarded = (parts: ReadonlyArray<StreamPart> | ReadableStream<StreamPart>, options = {}) => {
  const cuts: Array<LoopguardTrip> = []
  const stream = guardStream({
    source: parts instanceof ReadableStream ? parts : from(parts),
    options: resolveMiddlewareOptions({ repeat: { threshold: 4 }, ...options }),
    cut: (t) => void cuts.push(t),
    ids: { provider: "test.chat", modelId: "m" }
  })
  return { stream, cuts }
}

const SENTENCE = "alpha beta gamma delta "

describe("guardStream", () => {
  test("a healthy stream comes out part for part", async () => {
    const parts = [{ type: "text-start", id: "t" }, text("t", "all good here"), { type: "text-end", id: "t" }, finish()] as Array<StreamPart>
    const { stream, cuts } = guarded(parts)
    expect(await drain(stream)).toEqual(parts)
    expect(cuts).toEqual([])
  })

  test("a loop that runs from reasoning into text is one loop; the cut closes both blocks", async () => {
    const parts: Array<StreamPart> = [
      { type: "reasoning-start", id: "r" },
      reasoning("r", SENTENCE + SENTENCE),
      { type: "text-start", id: "t" },
      text("t", SENTENCE),
      text("t", SENTENCE),
      text("t", "never seen"),
      finish()
    ]
    const { stream, cuts } = guarded(parts)
    const out = await drain(stream)
    expect(cuts).toHaveLength(1)
    expect(out.map((p) => p.type)).toEqual(["reasoning-start", "reasoning-delta", "text-start", "text-delta", "text-delta", "reasoning-end", "text-end", "finish"])
    const last = out.at(-1) as Extract<StreamPart, { type: "finish" }>
    expect(last.finishReason).toEqual({ unified: "other", raw: "loopguard:text-repeat" })
    expect(last.providerMetadata?.["loopguard"]).toMatchObject({ tripped: "text-repeat", period: 4, repeats: 4 })
  })

  test("a loop completed by the last held word trips at the end, replacing the model's finish", async () => {
    const body = (SENTENCE.repeat(4)).trimEnd()
    const { stream, cuts } = guarded([text("t", body), finish("length")])
    const out = await drain(stream)
    expect(cuts.map((c) => c.tripped)).toEqual(["text-repeat"])
    expect(out.filter((p) => p.type === "finish")).toHaveLength(1)
    expect((out.at(-1) as Extract<StreamPart, { type: "finish" }>).finishReason.raw).toBe("loopguard:text-repeat")
  })

  test("tool parts pass through; a call's arguments feed a guard of their own, and one whose arguments loop is cut before its call", async () => {
    const call = (q: string): Array<StreamPart> => {
      const args = JSON.stringify({ q })
      return [
        { type: "tool-input-start", id: "c", toolName: "lookup" },
        { type: "tool-input-delta", id: "c", delta: args },
        { type: "tool-input-end", id: "c" },
        { type: "tool-call", toolCallId: "c", toolName: "lookup", input: args }
      ]
    }
    const healthy = [...call("where is the parser configured"), finish()]
    const fine = guarded(healthy)
    expect(await drain(fine.stream)).toEqual(healthy)
    expect(fine.cuts).toEqual([])
    const looping = guarded([...call(SENTENCE.repeat(10)), finish()])
    const out = await drain(looping.stream)
    expect(looping.cuts.map((c) => c.tripped)).toEqual(["text-repeat"])
    expect(out.some((p) => p.type === "tool-call")).toBe(false)
  })

  test("silence longer than the chunk timeout cuts, counting the parts before it", async () => {
    let pulls = 0
    const silent = new ReadableStream<StreamPart>({
      pull(c) {
        pulls += 1
        if (pulls === 1) c.enqueue(text("t", "hello"))
        return new Promise(() => {}) // then nothing, ever
      }
    })
    const { stream, cuts } = guarded(silent, { stream: { chunkTimeoutMs: 30 } })
    const out = await drain(stream)
    expect(cuts).toEqual([{ tripped: "chunk-timeout", timeoutMs: 30, partsBefore: 1 }])
    expect((out.at(-1) as Extract<StreamPart, { type: "finish" }>).finishReason).toEqual({ unified: "error", raw: "loopguard:chunk-timeout" })
  })
})

describe("collectGenerateResult", () => {
  test("text and reasoning blocks, tool calls in order; finish, usage, metadata, warnings", async () => {
    const parts: Array<StreamPart> = [
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "resp-1", modelId: "m" },
      reasoning("r", "think "),
      reasoning("r", "more"),
      text("t", "Hello "),
      text("t", "world"),
      { type: "tool-call", toolCallId: "c", toolName: "lookup", input: "{}" },
      { ...finish(), providerMetadata: { p: { x: 1 } } } as StreamPart
    ]
    const r = await collectGenerateResult({ stream: from(parts), response: { headers: { a: "b" } } })
    expect(r.content).toEqual([
      { type: "reasoning", text: "think more" },
      { type: "text", text: "Hello world" },
      { type: "tool-call", toolCallId: "c", toolName: "lookup", input: "{}" }
    ])
    expect(r.finishReason).toEqual({ unified: "stop", raw: "stop" })
    expect(r.usage).toEqual(USAGE)
    expect(r.providerMetadata).toEqual({ p: { x: 1 } })
    expect(r.response).toEqual({ id: "resp-1", modelId: "m", headers: { a: "b" } })
  })

  test("an error part is thrown, as doGenerate would throw it", async () => {
    const boom = new Error("upstream said no")
    await expect(collectGenerateResult({ stream: from([text("t", "x"), { type: "error", error: boom }]) })).rejects.toBe(boom)
  })
})

describe("guardStream against a hostile stream", () => {
  test("a 10 MB delta that loops from its start is cut inside the delta, not passed whole", async () => {
    const huge = SENTENCE.repeat(Math.ceil(10_000_000 / SENTENCE.length))
    const { stream, cuts } = guarded([{ type: "text-start", id: "t" }, text("t", huge), { type: "text-end", id: "t" }, finish()] as Array<StreamPart>)
    const out = await drain(stream)
    const passed = out.reduce((n, p) => n + (p.type === "text-delta" ? p.delta.length : 0), 0)
    expect(cuts).toHaveLength(1)
    expect(cuts[0]!.tripped).toBe("text-repeat")
    expect(passed).toBeLessThanOrEqual(2 * DELTA_SLICE)
    expect(out.at(-1)).toMatchObject({ type: "finish", finishReason: { raw: "loopguard:text-repeat" } })
  })

  test("a stream that sends empty deltas for ever is cut at the chunk timeout", async () => {
    let timer: ReturnType<typeof setInterval> | undefined
    const endless = new ReadableStream<StreamPart>({
      start(c) {
        c.enqueue({ type: "text-start", id: "t" })
        c.enqueue(text("t", "hello "))
        timer = setInterval(() => c.enqueue(text("t", "")), 20)
      },
      cancel() {
        clearInterval(timer)
      }
    })
    const { stream, cuts } = guarded(endless, { stream: { chunkTimeoutMs: 1_000 } })
    const ended = await Promise.race([drain(stream).then((parts) => parts.at(-1)), Bun.sleep(20_000).then(() => "still streaming" as const)])
    clearInterval(timer)
    expect(ended).toMatchObject({ type: "finish", finishReason: { raw: "loopguard:chunk-timeout" } })
    expect(cuts.map((c) => c.tripped)).toEqual(["chunk-timeout"])
  }, 30_000)
})
