/**
 * Chat Completions events the AI SDK could not read, made readable before it parses them: unit
 * checks of the rewrite, any cut of the bytes, and the real provider over HTTP reading a Foundry
 * Local-style stream (`"error": null` in every chunk) and a call whose arguments came as an object.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { afterEach, describe, expect, test } from "bun:test"
import { jsonSchema, streamText, tool } from "ai"
import fc from "fast-check"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fixedChunk, normalizeChatEvents } from "./chat-events.js"
import { limitedFetch } from "./response-limits.js"

const through = async (chunks: ReadonlyArray<Uint8Array>): Promise<string> => {
  const source = new ReadableStream<Uint8Array>({
    start: (c) => {
      for (const chunk of chunks) c.enqueue(chunk)
      c.close()
    }
  })
  return new Response(source.pipeThrough(normalizeChatEvents())).text()
}

const chunk = (body: object) => `data: ${JSON.stringify(body)}\n\n`
const enc = (s: string) => new TextEncoder().encode(s)

describe("fixedChunk", () => {
  test('"error": null goes; an error that is set stays, as does every other field', () => {
    expect(JSON.parse(fixedChunk('{"id":"a","error": null,"choices":[]}')!)).toEqual({ id: "a", choices: [] })
    expect(fixedChunk('{"error":{"message":"overloaded"}}')).toBeNull()
    expect(fixedChunk('{"id":"a","choices":[]}')).toBeNull()
    expect(fixedChunk("[DONE]")).toBeNull()
    expect(fixedChunk('{"error":null')).toBeNull()
  })
  test("a call's arguments sent as an object become its JSON text; text arguments are left as they came", () => {
    const fixed = JSON.parse(fixedChunk(JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: "bash", arguments: { command: "ls" } } }] } }] }))!)
    expect(fixed.choices[0].delta.tool_calls[0].function.arguments).toBe('{"command":"ls"}')
    expect(fixedChunk(JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] } }] }))).toBeNull()
  })
})

describe("normalizeChatEvents", () => {
  test("however the bytes are cut, the text out is the events with the two shapes fixed; others pass byte for byte", async () => {
    const body =
      chunk({ id: "c", error: null, choices: [{ index: 0, delta: { content: "héllo" } }] }) +
      chunk({ id: "c", choices: [{ index: 0, delta: { content: " world" } }] }) +
      "data: [DONE]\r\n\r\n"
    const want =
      chunk({ id: "c", choices: [{ index: 0, delta: { content: "héllo" } }] }) + chunk({ id: "c", choices: [{ index: 0, delta: { content: " world" } }] }) + "data: [DONE]\r\n\r\n"
    const bytes = enc(body)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: bytes.length }), async (size) => {
        const pieces: Array<Uint8Array> = []
        for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size))
        expect(await through(pieces)).toBe(want)
      }),
      { numRuns: 60 }
    )
    const plain = chunk({ id: "c", choices: [{ index: 0, delta: { content: "as it came" } }] }) + ": keep-alive\n\n"
    expect(await through([enc(plain)])).toBe(plain)
  })
})

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())))
  server = undefined
})

/** A raw Chat Completions server answering every request with `body` as an event stream (`reset`: then the connection is reset, not ended). */
const serve = async (body: string, reset = false): Promise<string> => {
  server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      if (!reset) return void res.end(body)
      res.write(body)
      // Late enough that the client has read what came before it (a reset drops bytes not yet read).
      setTimeout(() => res.socket?.destroy(), 300)
    })
  })
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

const modelAt = (baseURL: string) =>
  createOpenAICompatible({ name: "raw", baseURL, fetch: limitedFetch({ maxResponseBytes: 1 << 20, maxEventBytes: 1 << 16 }) }).chatModel("m")

describe("the AI SDK provider through limitedFetch", () => {
  test('a Foundry Local-style stream ("error": null in every chunk) is read as the reply it is', async () => {
    const at = (delta: object, finish: string | null) => chunk({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", error: null, choices: [{ index: 0, delta, finish_reason: finish }] })
    const baseURL = await serve(at({ role: "assistant", content: "" }, null) + at({ content: "All " }, null) + at({ content: "done." }, null) + at({}, "stop") + "data: [DONE]\n\n")
    const result = streamText({ model: modelAt(baseURL), prompt: "hi", maxRetries: 0 })
    expect(await result.text).toBe("All done.")
    expect(await result.finishReason).toBe("stop")
  })

  test("a call whose arguments came as an object is read as the call, with those arguments", async () => {
    const call = { index: 0, id: "call_1", type: "function", function: { name: "bash", arguments: { command: "ls -la" } } }
    const at = (delta: object, finish: string | null) => chunk({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })
    const baseURL = await serve(at({ role: "assistant", tool_calls: [call] }, null) + at({}, "tool_calls") + "data: [DONE]\n\n")
    const bash = tool({ inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }), execute: async () => "ok" })
    const result = streamText({ model: modelAt(baseURL), prompt: "list", tools: { bash }, maxRetries: 0 })
    expect((await result.toolCalls).map((c) => [c.toolName, c.input])).toEqual([["bash", { command: "ls -la" }]])
  })

  test("a connection reset after the reply named its finish: the reply is read whole (only [DONE] was lost); one reset before it is an error", async () => {
    const at = (delta: object, finish: string | null) => chunk({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })
    const whole = streamText({ model: modelAt(await serve(at({ role: "assistant", content: "All done." }, null) + at({}, "stop"), true)), prompt: "hi", maxRetries: 0 })
    expect(await whole.text).toBe("All done.")
    expect(await whole.finishReason).toBe("stop")
    await new Promise<void>((done) => server!.close(() => done()))
    server = undefined
    const cut = streamText({ model: modelAt(await serve(at({ role: "assistant", content: "All do" }, null), true)), prompt: "hi", maxRetries: 0, onError: () => {} })
    await cut.consumeStream()
    expect(await Promise.resolve(cut.finishReason).catch(() => "failed")).not.toBe("stop")
  })
})
