/**
 * The middleware through the real AI SDK (`streamText`, `generateText`, `wrapLanguageModel`) and
 * the real OpenAI-compatible provider, against the scripted server; cuts are judged from the
 * server's side (the client closed before the response ended).
 */
import { describe, expect, test } from "bun:test"
import { generateText, streamText, wrapLanguageModel, type LanguageModel } from "ai"
import { declaredTools, repeatLoop, scriptedChatModel, textStream, toolCallStream } from "../scripted-server/index.js"
import type { Script, ScriptedProvider, ScriptedServer } from "../scripted-server/index.js"
import { scriptedServersPerTest } from "../scripted-server/per-test.fixture.js"
import { loopguardMiddleware, type LoopguardMiddlewareOptions, type LoopguardTrip } from "./index.js"

const TIMEOUT = 30_000
const SENTENCE = "the build failed so I will run the tests again now"

/**
 * 300 copies of the sentence, but the server goes silent (connection held open) after 200 chunks,
 * well past the trip (~130 chunks): only a client that closes the request ends that response.
 */
const LOOP_THEN_HOLD = repeatLoop(SENTENCE, 300, { chunkDelayMs: 1, stallAfterChunks: 200 })

/** The request's end, or "still open" after `ms` (a fail-safe so a missing cut fails clearly). */
const ended = (server: ScriptedServer, ms = 15_000) =>
  Promise.race([server.requests[0]!.done.then(() => server.requests[0]!.outcome), new Promise((r) => setTimeout(() => r("still open"), ms))])

const { serve } = scriptedServersPerTest()

const guarded = (server: ScriptedServer, options?: LoopguardMiddlewareOptions, provider: ScriptedProvider = "openai-compatible"): LanguageModel =>
  wrapLanguageModel({ model: scriptedChatModel(server, provider) as never, middleware: loopguardMiddleware(options) })

const stream = (model: LanguageModel, extra: Partial<Parameters<typeof streamText>[0]> = {}) =>
  streamText({ model, prompt: "hi", maxRetries: 0, onError: () => {}, ...extra } as Parameters<typeof streamText>[0])

/** What a consumer sees of a stream, without ids and timings. */
const shapeOf = async (result: ReturnType<typeof stream>) => {
  const parts: Array<string> = []
  for await (const part of result.fullStream) {
    if (part.type === "text-delta" || part.type === "reasoning-delta") parts.push(`${part.type}:${part.text}`)
    else if (part.type === "tool-call") parts.push(`tool-call:${part.toolName}:${JSON.stringify(part.input)}`)
    else if (part.type === "finish") parts.push(`finish:${part.finishReason}`)
    else parts.push(part.type)
  }
  return parts
}

describe("loopguardMiddleware with streamText", () => {
  test.each(["openai-compatible", "openai"] as const)(
    "a looping stream is cut: the server sees the client close, the finish says why (%s provider)",
    async (provider) => {
      const server = await serve([LOOP_THEN_HOLD])
      const trips: Array<LoopguardTrip> = []
      const errors: Array<unknown> = []
      const result = stream(guarded(server, { onTrip: (t) => void trips.push(t) }, provider), { onError: ({ error }: { error: unknown }) => void errors.push(error) })
      const text = await result.text
      expect(errors).toEqual([])
      expect(await result.rawFinishReason).toBe("loopguard:text-repeat")
      const meta = await result.providerMetadata
      expect(await result.finishReason).toBe("other")
      expect(meta?.["loopguard"]).toMatchObject({ tripped: "text-repeat", period: 11 })
      expect(trips).toHaveLength(1)
      const copies = text.split(SENTENCE).length - 1
      expect(copies).toBeGreaterThanOrEqual(19)
      expect(copies).toBeLessThanOrEqual(21)
      // The server holds the connection after its 200th chunk: only the client's close ends it (how many
      // of the 200 were written before the close reached it depends on the machine's load).
      expect(await ended(server)).toBe("client-closed")
    },
    TIMEOUT
  )

  test(
    "a paragraph too long for the short-period rule, written 400 times, is cut by the long-period rule from core's guard",
    async () => {
      const paragraph =
        "We need to update the parser so that the nested table rows keep their alignment when the header holds merged cells, then rerun the formatter tests and compare the output with the expected fixture files once more. "
      const server = await serve([repeatLoop(paragraph.trim(), 400, { chunkDelayMs: 0, stallAfterChunks: 300 })])
      const trips: Array<LoopguardTrip> = []
      const result = stream(guarded(server, { onTrip: (t) => void trips.push(t) }))
      const text = await result.text
      expect(await result.rawFinishReason).toBe("loopguard:text-repeat")
      expect((await result.providerMetadata)?.["loopguard"]).toMatchObject({ tripped: "text-repeat", rule: "long" })
      expect(trips).toHaveLength(1)
      // Within 5 copies of the loop's start; the server sees the client close.
      expect(text.split("once more.").length - 1).toBeLessThanOrEqual(5)
      expect(await ended(server)).not.toBe("still open")
      expect(server.requests[0]!.closedEarly).toBe(true)
    },
    TIMEOUT
  )

  test(
    "a healthy stream (reasoning, text, usage) passes through unchanged",
    async () => {
      const script = textStream("All tests pass now; the fix was a missing await in the loader.", {
        reasoning: "Look at the loader first, then rerun.",
        usage: { prompt_tokens: 12, completion_tokens: 30 }
      })
      const plain = await serve([script])
      const wrapped = await serve([script])
      const a = stream(scriptedChatModel(plain))
      const b = stream(guarded(wrapped))
      expect(await shapeOf(b)).toEqual(await shapeOf(a))
      expect(await b.usage).toEqual(await a.usage)
      expect(await b.providerMetadata).toEqual(await a.providerMetadata)
      expect(wrapped.requests[0]!.outcome).toBe("completed")
    },
    TIMEOUT
  )

  test(
    "tool calls pass through",
    async () => {
      const script = toolCallStream("lookup", { q: "loader" }, { text: "Checking.", pieces: 3 })
      const plain = await serve([script])
      const wrapped = await serve([script])
      const tools = declaredTools("lookup")
      const a = stream(scriptedChatModel(plain), { tools })
      const b = stream(guarded(wrapped), { tools })
      const shape = await shapeOf(b)
      expect(shape).toEqual(await shapeOf(a))
      expect(shape).toContain('tool-call:lookup:{"q":"loader"}')
      expect(await b.finishReason).toBe("tool-calls")
    },
    TIMEOUT
  )

  test(
    "a stall trips the chunk timeout: the request is closed and the finish says error",
    async () => {
      const server = await serve([textStream("first words then silence", { chunkSize: 6, stallAfterChunks: 2 })])
      const result = stream(guarded(server, { stream: { chunkTimeoutMs: 300 } }))
      expect(await result.text).toBe("first words ")
      expect(await result.finishReason).toBe("error")
      expect(await result.rawFinishReason).toBe("loopguard:chunk-timeout")
      expect((await result.providerMetadata)?.["loopguard"]).toMatchObject({ tripped: "chunk-timeout", timeoutMs: 300 })
      expect(await ended(server)).toBe("client-closed")
    },
    TIMEOUT
  )

  test(
    "no response at all within the timeout is a stall too",
    async () => {
      const server = await serve(() => new Promise((resolve) => setTimeout(() => resolve(textStream("late")), 5_000)))
      const result = stream(guarded(server, { stream: { chunkTimeoutMs: 200 } }))
      expect(await result.finishReason).toBe("error")
      expect((await result.providerMetadata)?.["loopguard"]).toEqual({ tripped: "chunk-timeout", timeoutMs: 200, partsBefore: 0, provider: "scripted.chat", modelId: "scripted-model" })
      expect(await ended(server)).toBe("client-closed")
    },
    TIMEOUT
  )

  test(
    "a connection reset mid-stream surfaces as it does without the middleware",
    async () => {
      const script = textStream("some words before the connection drops", { chunkSize: 5, resetAfterChunks: 3 })
      const plain = await serve([script])
      const wrapped = await serve([script])
      const a = stream(scriptedChatModel(plain))
      const b = stream(guarded(wrapped))
      const [shapeA, shapeB] = [await shapeOf(a).catch((e) => [`threw:${String(e)}`]), await shapeOf(b).catch((e) => [`threw:${String(e)}`])]
      expect(shapeB).toEqual(shapeA)
      expect(String(shapeB[0])).toContain("threw:")
    },
    TIMEOUT
  )

  test(
    "with the guard off, the same loop streams to its end",
    async () => {
      const server = await serve([repeatLoop(SENTENCE, 40)])
      const result = stream(guarded(server, { repeat: { enabled: false } }))
      expect((await result.text).split(SENTENCE).length - 1).toBe(40)
      expect(await result.finishReason).toBe("length")
    },
    TIMEOUT
  )
})

describe("loopguardMiddleware with generateText", () => {
  test(
    "a looping reply is cut upstream and reported in the result",
    async () => {
      const server = await serve([LOOP_THEN_HOLD])
      const result = await generateText({ model: guarded(server), prompt: "hi", maxRetries: 0 })
      expect(result.finishReason).toBe("other")
      expect(result.providerMetadata?.["loopguard"]).toMatchObject({ tripped: "text-repeat", period: 11 })
      expect(result.text.split(SENTENCE).length - 1).toBeLessThanOrEqual(21)
      // The server holds the connection after its 200th chunk: only the client's close ends it (how many
      // of the 200 were written before the close reached it depends on the machine's load).
      expect(await ended(server)).toBe("client-closed")
    },
    TIMEOUT
  )

  test(
    "a healthy reply and a tool call come back as without the middleware",
    async () => {
      const tools = declaredTools("lookup")
      const script: Script = [textStream("Done: the loader now awaits its config.", { reasoning: "check loader" }), toolCallStream("lookup", { q: "x" })]
      const plain = await serve(script)
      const wrapped = await serve(script)
      const pick = (r: Awaited<ReturnType<typeof generateText>>) => ({ text: r.text, reasoning: r.reasoningText, finish: r.finishReason })
      expect(pick(await generateText({ model: guarded(wrapped), prompt: "hi", maxRetries: 0 }))).toEqual(
        pick(await generateText({ model: scriptedChatModel(plain), prompt: "hi", maxRetries: 0 }))
      )
      const calls = await generateText({ model: guarded(wrapped), prompt: "hi", maxRetries: 0, tools })
      expect(calls.toolCalls.map((c) => [c.toolName, c.input])).toEqual([["lookup", { q: "x" }]])
      expect(calls.finishReason).toBe("tool-calls")
    },
    TIMEOUT
  )

  test(
    "a provider's error event mid-stream is thrown as an Error with the provider's words, retryable when it says so",
    async () => {
      const { createServer } = await import("node:http")
      const chunk = (delta: object) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`
      let requests = 0
      const server = createServer((_req, res) => {
        requests += 1
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(`${chunk({ role: "assistant", content: "Let me check" })}data: ${JSON.stringify({ error: { message: "Overloaded", type: "overloaded_error" } })}\n\n`)
      })
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
      try {
        const { port } = server.address() as { port: number }
        const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
        const model = wrapLanguageModel({ model: createOpenAICompatible({ name: "raw", baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "k" }).chatModel("m"), middleware: loopguardMiddleware() })
        const thrown = await generateText({ model, prompt: "hi", maxRetries: 2 }).then(() => null, (e: unknown) => e)
        expect(thrown).toBeInstanceOf(Error)
        expect((thrown as Error).message).toContain("Overloaded")
        // It did not say it may be retried: asked once.
        expect(requests).toBe(1)
      } finally {
        await new Promise<void>((r) => server.close(() => r()))
      }
    },
    TIMEOUT
  )
})
