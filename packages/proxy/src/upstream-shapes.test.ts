/**
 * Replies as some real servers send them, written by hand: a freeform call (Codex's `apply_patch`),
 * a first event that arrives in pieces, bodies that stall after their headers, compressed and large
 * error bodies, and a Retry-After of a day. The client must get what the upstream meant, or its
 * protocol's error within the chunk timeout, never a hang.
 */
import { streamFrames, textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { gzipSync } from "node:zlib"
import { makeMemoryStore } from "@loopguard/effect/store"
import { Effect } from "effect"
import { configWith, HTTP_STACKS, post } from "./proxy.fixture.js"
import { proxyFor, rawUpstream, type RawUpstream } from "./raw-upstream.fixture.js"
import { startProxy, type ProxyEvent, type RunningProxy } from "./server.js"

let upstream: RawUpstream | undefined
let proxy: RunningProxy | undefined
afterEach(async () => {
  await proxy?.close()
  await upstream?.close()
  proxy = upstream = undefined
})

const SSE = { "content-type": "text/event-stream" }
const chatRequest = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }
const healthyChat = (): string => {
  const frames = streamFrames(textStream("All done here.", { chunkSize: 5 }), { id: "c1", created: 1_700_000_000, model: "m" })
  return [...frames.content, ...frames.trailer].join("")
}
const named = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("a streamed freeform call (custom_tool_call, as Codex's apply_patch) passes on byte for byte, asked for once", async () => {
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch"
    const item = { type: "custom_tool_call", id: "ctc_1", call_id: "call_1", name: "apply_patch" }
    const body =
      named("response.created", { sequence_number: 0, response: { id: "resp_1", status: "in_progress", output: [] } }) +
      named("response.output_item.added", { sequence_number: 1, output_index: 0, item: { ...item, input: "", status: "in_progress" } }) +
      named("response.custom_tool_call_input.delta", { sequence_number: 2, output_index: 0, item_id: "ctc_1", delta: patch.slice(0, 20) }) +
      named("response.custom_tool_call_input.delta", { sequence_number: 3, output_index: 0, item_id: "ctc_1", delta: patch.slice(20) }) +
      named("response.custom_tool_call_input.done", { sequence_number: 4, output_index: 0, item_id: "ctc_1", input: patch }) +
      named("response.output_item.done", { sequence_number: 5, output_index: 0, item: { ...item, input: patch, status: "completed" } }) +
      named("response.completed", { sequence_number: 6, response: { id: "resp_1", status: "completed", output: [{ ...item, input: patch, status: "completed" }] } })
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.end(body)
    })
    proxy = await proxyFor(upstream.url, stack, [])
    const got = await post(`${proxy.url}/v1/responses`, { model: "m", stream: true, input: "patch it", tools: [{ type: "custom", name: "apply_patch" }] })
    expect(got.text).toBe(body)
    expect(upstream.requests()).toBe(1)
  })

  test("a first event that arrives in two pieces, then the upstream's error event: the client gets the upstream's stream as it came, its error's code kept", async () => {
    const opening = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { role: "assistant" } }] })}\n\n`
    const error = `data: ${JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", type: "invalid_request_error", code: "context_length_exceeded" } })}\n\n`
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.write(opening.slice(0, 20))
      setTimeout(() => res.end(opening.slice(20) + error), 50)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const got = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(got.status).toBe(200)
    expect(got.text).toBe(opening + error)
    expect(upstream.requests()).toBe(1)
  })

  test("a first event cut short by a stall is a failed attempt: asked for again, the client gets the second reply", async () => {
    const healthy = healthyChat()
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      if (upstream!.requests() === 1) res.write("da")
      else res.end(healthy)
    })
    proxy = await proxyFor(upstream.url, stack, [], 400)
    const got = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(got.text).toBe(healthy)
    expect(upstream.requests()).toBe(2)
  })

  test("an error body that stalls is cut at the chunk timeout and the attempt retried; a compressed stream that stalls after its header too", async () => {
    const healthy = healthyChat()
    upstream = await rawUpstream((_req, res) => {
      const n = upstream!.requests()
      if (n === 1) {
        res.writeHead(503, { "content-type": "application/json" })
        res.write('{"error":{"message":"overlo')
      } else if (n === 2) {
        res.writeHead(200, { ...SSE, "content-encoding": "gzip" })
        res.write(gzipSync(Buffer.from(healthy)).subarray(0, 10))
      } else res.end(healthy)
    })
    proxy = await proxyFor(upstream.url, stack, [], 400)
    const started = Date.now()
    const got = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(got.text).toBe(healthy)
    expect(upstream.requests()).toBe(3)
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 20_000)

  test("a JSON reply whose body stalls: the client gets the protocol's error naming the silence, within the chunk timeout", async () => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.write('{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"par')
    })
    proxy = await proxyFor(upstream.url, stack, [], 400)
    const started = Date.now()
    const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, stream: false })
    expect(got.status).toBe(502)
    expect(JSON.parse(got.text).error.message).toContain("went silent for 400 ms")
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  test("a gzip-compressed error body reaches the client plain, without the encoding; a 300 KB one whole", async () => {
    const big = JSON.stringify({ error: { message: "bad request", type: "invalid_request_error", detail: "x".repeat(300_000) } })
    upstream = await rawUpstream((_req, res) => {
      if (upstream!.requests() === 1) {
        res.writeHead(400, { "content-type": "application/json", "content-encoding": "gzip" })
        res.end(gzipSync(Buffer.from('{"error":{"message":"no such model","type":"invalid_request_error"}}')))
      } else {
        res.writeHead(400, { "content-type": "application/json" })
        res.end(big)
      }
    })
    proxy = await proxyFor(upstream.url, stack, [])
    const compressed = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(compressed.status).toBe(400)
    expect(compressed.headers.get("content-encoding")).toBeNull()
    expect(JSON.parse(compressed.text).error.message).toBe("no such model")
    const large = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(large.text).toBe(big)
  })
})

test("a Retry-After of a day holds the upstream for at most the longest retry wait (5 min), not a day", async () => {
  upstream = await rawUpstream((_req, res) => {
    res.writeHead(429, { "content-type": "application/json", "retry-after": "86400" })
    res.end('{"error":{"message":"daily quota","type":"rate_limit_error"}}')
  })
  proxy = await proxyFor(upstream.url, "bun", [])
  expect((await post(`${proxy.url}/v1/chat/completions`, chatRequest)).status).toBe(429)
  const other = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, messages: [{ role: "user", content: "another" }] })
  expect(other.status).toBe(429)
  const left = Number(other.headers.get("retry-after"))
  expect(left).toBeGreaterThan(290)
  expect(left).toBeLessThanOrEqual(300)
  expect(upstream.requests()).toBe(1)
})

test("a reply that is not streamed is kept in the session as a streamed one is: its text and its calls", async () => {
  const reply = { id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Reading it.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }] }, finish_reason: "tool_calls" }] }
  upstream = await rawUpstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(reply))
  })
  const store = makeMemoryStore()
  proxy = await startProxy({ config: configWith(upstream.url), host: "127.0.0.1", port: 0, store })
  const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, stream: false }, { "x-loopguard-session": "whole-1" })
  expect(JSON.parse(got.text)).toEqual(reply)
  let stored = await Effect.runPromise(store.messages("whole-1"))
  for (let i = 0; i < 100 && stored.length < 2; i++) {
    await Bun.sleep(20)
    stored = await Effect.runPromise(store.messages("whole-1"))
  }
  expect(stored.map((m) => m.role)).toEqual(["user", "assistant"])
  expect(stored[1]).toMatchObject({ finish: "tool-calls", parts: [{ type: "text", text: "Reading it." }, { type: "tool", name: "read", input: { path: "a.txt" } }] })
})
