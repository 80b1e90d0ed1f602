/**
 * Upstreams that misbehave in ways the scripted server does not: a raw HTTP server whose reply is
 * written by hand, so the bytes after the protocol's terminator (a connection kept open, or reset),
 * a body that ends without the terminator, and a gzip-compressed stream can be sent as some servers
 * send them. What the client of the proxy gets must still be one well-formed reply.
 */
import { messagesFrames, responsesFrames, streamFrames, textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { makeMemoryStore } from "@loopguard/effect/store"
import { Effect } from "effect"
import { configWith, HTTP_STACKS, PATHS, post, records } from "./proxy.fixture.js"
import type { ProtocolName } from "./protocol.js"
import { startProxy, type ProxyEvent, type RunningProxy } from "./server.js"

type Streamed = Exclude<ProtocolName, "gemini">
const STREAMED: ReadonlyArray<Streamed> = ["chat", "responses", "messages"]

const who = { id: "reply-1", created: 1_700_000_000, model: "m" }

/** A whole text reply in `protocol`'s events, its terminator last. */
const replyEvents = (protocol: Streamed, text: string): Array<string> => {
  const reply = textStream(text, { chunkSize: 6 })
  const frames = protocol === "chat" ? streamFrames(reply, who) : protocol === "responses" ? responsesFrames(reply, who) : messagesFrames(reply, who)
  const head: ReadonlyArray<string> = "head" in frames ? (frames.head as ReadonlyArray<string>) : []
  return [...head, ...frames.content, ...frames.trailer]
}

const request = (protocol: Streamed) =>
  protocol === "chat"
    ? { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }
    : protocol === "responses"
      ? { model: "m", stream: true, input: "hi" }
      : { model: "m", stream: true, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }

const TERMINATOR: Readonly<Record<Streamed, string>> = { chat: "data: [DONE]", responses: "response.completed", messages: "message_stop" }

interface RawUpstream {
  readonly url: string
  readonly requests: () => number
  readonly close: () => Promise<void>
}

/** An upstream that answers every request with `reply`, written by hand. */
const rawUpstream = async (reply: (req: IncomingMessage, res: ServerResponse) => void): Promise<RawUpstream> => {
  let count = 0
  const server: Server = createServer((req, res) => {
    count += 1
    req.resume()
    req.on("end", () => reply(req, res))
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

let upstream: RawUpstream | undefined
let proxy: RunningProxy | undefined
afterEach(async () => {
  await proxy?.close()
  await upstream?.close()
  proxy = upstream = undefined
})

const proxyFor = async (url: string, stack: "bun" | "node", events: Array<ProxyEvent>, chunkTimeoutMs = 2_000) =>
  startProxy({
    config: configWith(url, (c) => ({ ...c, stream: { ...c.stream, chunkTimeoutMs } })),
    host: "127.0.0.1",
    port: 0,
    httpStack: stack,
    onEvent: (e) => events.push(e)
  })

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  describe.each(STREAMED)("%s", (protocol) => {
    test.each(["kept open", "reset"] as const)("after the terminator the upstream's connection is %s: the reply ends at the terminator, complete", async (after) => {
      upstream = await rawUpstream((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(replyEvents(protocol, "Hello from the model.").join(""))
        if (after === "reset") setTimeout(() => res.socket?.destroy(), 50)
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events, 5_000)
      const started = Date.now()
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(reply.text).toContain("from t")
      const terminator = reply.text.lastIndexOf(TERMINATOR[protocol])
      expect(terminator).toBeGreaterThan(-1)
      expect(reply.text.slice(terminator)).not.toContain("error")
      expect(records(events)[0]?.outcome).toBe("completed")
    }, 30_000)
  })
})

/** The SSE events of a raw reply, parsed: event name and JSON data. */
const eventsIn = (text: string): Array<{ event: string | undefined; data: any }> =>
  text
    .split(/\n\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? ""
      return { event, data: data === "[DONE]" ? data : JSON.parse(data) }
    })

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  describe.each(STREAMED)("%s", (protocol) => {
    test("a gzip-compressed stream (asked for none) is read and guarded: a loop in it is cut, the client gets plain events", async () => {
      const loop = Array.from({ length: 120 }, () => "The same sentence comes back again and again. ").join("")
      upstream = await rawUpstream((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" })
        res.end(gzipSync(replyEvents(protocol, loop).join("")))
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events)
      const reply = await fetch(`${proxy.url}/v1${PATHS[protocol]}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request(protocol)) })
      expect(reply.headers.get("content-encoding")).toBeNull()
      const text = await reply.text()
      expect(text).toContain("[loopguard: this reply started repeating itself")
      expect(eventsIn(text).length).toBeGreaterThan(2)
      expect(records(events)[0]?.outcome).toBe("cut")
    }, 30_000)

    test("a body that ends after some text without the protocol's end: the client gets the error event, the record says failed", async () => {
      upstream = await rawUpstream((_req, res) => {
        const events = replyEvents(protocol, "Some words and then nothing more")
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(events.slice(0, protocol === "chat" ? 3 : 5).join(""))
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events)
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      const parsed = eventsIn(reply.text)
      expect(JSON.stringify(parsed.at(protocol === "chat" ? -2 : -1))).toContain("the upstream ended the reply before its end event")
      if (protocol === "responses") expect(typeof parsed.at(-1)?.data.sequence_number).toBe("number")
      expect(records(events)[0]?.outcome).toBe("failed")
    }, 30_000)

    test.each(["closes", "goes silent"] as const)("a reply that named its finish, then %s before its terminator: the client still gets the terminator, once, the record says completed", async (how) => {
      upstream = await rawUpstream((_req, res) => {
        const events = replyEvents(protocol, "A whole answer, its finish named")
        res.writeHead(200, { "content-type": "text/event-stream" })
        // Responses names its finish in its terminator: there the whole reply goes, as a control.
        const whole = events.join("")
        const sent = protocol === "chat" ? whole.replace("data: [DONE]\n\n", "") : protocol === "messages" ? whole.replace(/event: message_stop\ndata: [^\n]*\n\n/, "") : whole
        expect(sent.length).toBeLessThan(protocol === "responses" ? Infinity : whole.length)
        if (how === "closes") res.end(sent)
        else res.write(sent)
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events, 500)
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      expect(reply.text.trimEnd().endsWith(protocol === "chat" ? "data: [DONE]" : "}")).toBe(true)
      const parsed = eventsIn(reply.text)
      const last = (e: { event: string | undefined; data: any }) => e.data === "[DONE]" || e.event === TERMINATOR[protocol]
      expect(parsed.filter(last).length).toBe(1)
      expect(last(parsed.at(-1)!)).toBe(true)
      expect(records(events)[0]?.outcome).toBe("completed")
    }, 30_000)

    test("a 200 stream that breaks before any content, every time: once the retries are spent, the client gets a 200 stream ended by the protocol's error event, not a 502", async () => {
      upstream = await rawUpstream((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        // The first event cut in its middle, then the connection reset.
        const first = replyEvents(protocol, "Never whole").find((e) => /text|delta/.test(e)) ?? ""
        res.write(first.slice(0, Math.floor(first.length / 2)))
        setTimeout(() => res.socket?.destroy(), 20)
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events)
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toContain("text/event-stream")
      expect(reply.text).toContain("the upstream connection broke before any content")
      expect(reply.text).not.toContain("Never whole")
      expect(upstream.requests()).toBeGreaterThan(1)
      expect(records(events)[0]).toMatchObject({ outcome: "upstream-error", status: 200 })
      // Each retry's log names what happened, not only the kind it is retried as.
      const reasons = events.flatMap((e) => (e.type === "retry" ? [e.retry.reason] : []))
      expect(reasons.length).toBe(upstream.requests() - 1)
      for (const reason of reasons) expect(reason).toBe("connection failure (ECONNRESET): the upstream connection broke before any content")
    }, 30_000)

    test("the upstream's own error event mid-reply, the connection then kept open: the client gets it at once and the reply ends, failed", async () => {
      const errorEvent = {
        chat: 'data: {"error":{"message":"the model is overloaded","type":"server_error"}}\n\n',
        responses: 'event: error\ndata: {"type":"error","sequence_number":40,"code":"server_error","message":"the model is overloaded"}\n\n',
        messages: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"the model is overloaded"}}\n\n'
      }[protocol]
      upstream = await rawUpstream((_req, res) => {
        const events = replyEvents(protocol, "Some words and then the error")
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(events.slice(0, protocol === "chat" ? 3 : 5).join("") + errorEvent)
      })
      const events: Array<ProxyEvent> = []
      proxy = await proxyFor(upstream.url, stack, events, 20_000)
      const started = Date.now()
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(reply.text.endsWith(errorEvent)).toBe(true)
      expect(records(events)[0]?.outcome).toBe("failed")
    }, 30_000)

    test("a stream that only opens, then ends, is asked for again: the client gets the second, whole reply", async () => {
      let served = 0
      upstream = await rawUpstream((_req, res) => {
        served += 1
        const events = replyEvents(protocol, "The whole answer.")
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(served === 1 ? events.slice(0, protocol === "chat" ? 0 : 1).join("") : events.join(""))
      })
      proxy = await proxyFor(upstream.url, stack, [])
      const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
      expect(reply.status).toBe(200)
      expect(reply.text).toContain(TERMINATOR[protocol])
      expect(upstream.requests()).toBe(2)
    }, 30_000)
  })

  test("one whole event past stream.maxEventBytes, as the reply's first event: refused with the protocol's error event", async () => {
    const words = Array.from({ length: 40_000 }, (_, i) => `w${i}`).join(" ")
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(replyEvents("chat", words).slice(0, 1).join("").replace(/"content":"[^"]*"/, `"content":"${words}"`) + "data: [DONE]\n\n")
    })
    const events: Array<ProxyEvent> = []
    proxy = await startProxy({
      config: configWith(upstream.url, (c) => ({ ...c, stream: { ...c.stream, maxEventBytes: 50_000 } })),
      host: "127.0.0.1",
      port: 0,
      httpStack: stack,
      onEvent: (e) => events.push(e)
    })
    const reply = await post(`${proxy.url}/v1/chat/completions`, request("chat"))
    expect(reply.text).toContain("one event passed stream.maxEventBytes (50000 bytes)")
    expect(reply.text).not.toContain("w39999")
    expect(records(events)[0]?.outcome).toBe("failed")
  }, 30_000)

  test("the client leaves while a Retry-After is waited out: the upstream is not asked again", async () => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "2" })
      res.end('{"error":{"message":"slow down","type":"rate_limit_error"}}')
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const leaving = new AbortController()
    const asked = fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request("chat")), signal: leaving.signal }).catch(() => null)
    await Bun.sleep(400)
    leaving.abort()
    await asked
    await Bun.sleep(2_500)
    expect(upstream.requests()).toBe(1)
    expect(records(events)[0]?.outcome).toBe("client-gone")
  }, 30_000)

  test("a Retry-After past the retry budget still holds every conversation: the next one gets a 429 without the upstream being asked", async () => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "100" })
      res.end('{"error":{"message":"come back later","type":"rate_limit_error"}}')
    })
    proxy = await proxyFor(upstream.url, stack, [])
    const first = await post(`${proxy.url}/v1/chat/completions`, request("chat"))
    expect(first.status).toBe(429)
    const other = { ...request("chat"), messages: [{ role: "user", content: "another conversation" }] }
    const second = await post(`${proxy.url}/v1/chat/completions`, other)
    expect(second.status).toBe(429)
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(90)
    expect(upstream.requests()).toBe(1)
  }, 30_000)
})

// Replies as some real servers send them: a freeform call (Codex's `apply_patch`), a first event that
// arrives in pieces, bodies that stall after their headers, compressed and large error bodies, a
// Retry-After of a day. The client gets what the upstream meant, or its protocol's error within the
// chunk timeout, never a hang.

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

  test('chunks that carry `"error": null` (Foundry Local) are healthy: the reply passes byte for byte, asked for once', async () => {
    const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: "c1", error: null, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const body = chunk({ role: "assistant", content: "" }, null) + chunk({ content: "All " }, null) + chunk({ content: "done." }, null) + chunk({}, "stop") + "data: [DONE]\n\n"
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.end(body)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const got = await post(`${proxy.url}/v1/chat/completions`, chatRequest)
    expect(got.text).toBe(body)
    expect(upstream.requests()).toBe(1)
    expect(records(events)[0]?.outcome).toBe("completed")
  })

  test("n = 2 with a call in each choice: both calls are whole and pass byte for byte, asked for once", async () => {
    const chunk = (index: number, delta: object, finish: string | null) => `data: ${JSON.stringify({ id: "c1", choices: [{ index, delta, finish_reason: finish }] })}\n\n`
    const call = (path: string, part: 0 | 1) => ({ tool_calls: [{ index: 0, ...(part === 0 ? { id: `call_${path}`, type: "function", function: { name: "read", arguments: "" } } : { function: { arguments: JSON.stringify({ path }) } }) }] })
    const body = chunk(0, call("a.txt", 0), null) + chunk(1, call("b.txt", 0), null) + chunk(0, call("a.txt", 1), null) + chunk(1, call("b.txt", 1), null) + chunk(0, {}, "tool_calls") + chunk(1, {}, "tool_calls") + "data: [DONE]\n\n"
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.end(body)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, n: 2, tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }] })
    expect(got.text).toBe(body)
    expect(upstream.requests()).toBe(1)
    expect(records(events)[0]?.outcome).toBe("completed")
  })

  test("a call cut at the length limit before any argument text is not passed on as a call without arguments: asked for again", async () => {
    const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const cut = chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "bash", arguments: "" } }] }, null) + chunk({}, "length") + "data: [DONE]\n\n"
    const healthy = healthyChat()
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.end(upstream!.requests() === 1 ? cut : healthy)
    })
    proxy = await proxyFor(upstream.url, stack, [])
    const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] })
    expect(got.text).toBe(healthy)
    expect(upstream.requests()).toBe(2)
  })

  test("a Gemini prompt the API blocked (promptFeedback.blockReason, no candidate) reaches the client as it came, asked for once", async () => {
    const body = `data: ${JSON.stringify({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 }, modelVersion: "gemini-x" })}\r\n\r\n`
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, SSE)
      res.end(body)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const got = await post(`${proxy.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, { contents: [{ role: "user", parts: [{ text: "hi" }] }] })
    expect(got.status).toBe(200)
    expect(got.text).toBe(body)
    expect(upstream.requests()).toBe(1)
    expect(records(events)[0]?.outcome).toBe("completed")
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
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events, 400)
    const started = Date.now()
    const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, stream: false })
    expect(got.status).toBe(502)
    expect(JSON.parse(got.text).error.message).toContain("went silent for 400 ms")
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(records(events).map((r) => [r.outcome, r.status])).toEqual([["failed", 502]])
  })

  test("a JSON reply that breaks off or stalls, nothing of it sent yet, is asked for once more: the client gets the second, whole", async () => {
    const whole = { id: "c2", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "All done." }, finish_reason: "stop" }] }
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      if (upstream!.requests() === 1) return void res.write('{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"par')
      res.end(JSON.stringify(whole))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events, 400)
    const got = await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, stream: false })
    expect(got.status).toBe(200)
    expect(JSON.parse(got.text)).toEqual(whole)
    expect(upstream.requests()).toBe(2)
    // The second asking is told and counted as a retry.
    expect(records(events).map((r) => [r.outcome, r.retries])).toEqual([["completed", 1]])
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1)
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

describe.each(HTTP_STACKS)("%s http stack: whole (not streamed) replies whose calls are not all finished", (stack) => {
  const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }]
  const reply = (json: object) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(json))
  }

  test("Chat with n = 2: a cut-off call in the second choice keeps every choice's calls back, asked once more", async () => {
    const choice = (index: number, args: string, finish: string) => ({ index, message: { role: "assistant", content: null, tool_calls: [{ id: `call_${index}`, type: "function", function: { name: "bash", arguments: args } }] }, finish_reason: finish })
    const json = { id: "c1", object: "chat.completion", choices: [choice(0, '{"command":"ls"}', "tool_calls"), choice(1, '{"command":"rm -rf /tmp/x && ec', "length")], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } }
    upstream = await rawUpstream(reply(json))
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const got = JSON.parse((await post(`${proxy.url}/v1/chat/completions`, { ...chatRequest, stream: false, n: 2, tools })).text)
    expect(got.choices.map((c: any) => [c.message.tool_calls, c.finish_reason])).toEqual([[undefined, "stop"], [undefined, "stop"]])
    expect(got.choices[0].message.content).toContain("was cut off before its arguments were complete")
    expect(JSON.stringify(got)).not.toContain("rm -rf")
    expect(upstream.requests()).toBe(2)
    expect(records(events)[0]?.outcome).toBe("cut")
  })

  test("Responses cut at its output limit: its last call, a freeform or a function call not marked completed, is not passed on; one marked incomplete neither", async () => {
    const patch = { type: "custom_tool_call", id: "ctc_1", call_id: "call_1", name: "apply_patch", input: "*** Begin Patch\n*** Delete File: src/main.ts" }
    const fn = (status?: string) => ({ type: "function_call", id: "fc_1", call_id: "call_2", name: "bash", arguments: '{"command":"ls"}', ...(status !== undefined ? { status } : {}) })
    const response = (status: string, output: Array<object>) => ({ id: "resp_1", object: "response", status, ...(status === "incomplete" ? { incomplete_details: { reason: "max_output_tokens" } } : {}), output, usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14 } })
    for (const json of [response("incomplete", [patch]), response("incomplete", [fn()]), response("completed", [fn("incomplete")])]) {
      upstream = await rawUpstream(reply(json))
      proxy = await proxyFor(upstream.url, stack, [])
      const got = JSON.parse((await post(`${proxy.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "bash", parameters: { type: "object" } }, { type: "custom", name: "apply_patch" }] })).text)
      expect([JSON.stringify(json.output), got.output.map((i: any) => i.type)]).toEqual([JSON.stringify(json.output), ["message"]])
      expect(upstream.requests()).toBe(2)
      await proxy.close()
      await upstream.close()
      proxy = upstream = undefined
    }
    // A call the upstream marked completed in a response cut later (in its text) is whole.
    upstream = await rawUpstream(reply(response("incomplete", [fn("completed")])))
    proxy = await proxyFor(upstream.url, stack, [])
    const whole = JSON.parse((await post(`${proxy.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "bash", parameters: { type: "object" } }] })).text)
    expect(whole.output.map((i: any) => i.type)).toEqual(["function_call"])
    expect(upstream.requests()).toBe(1)
  })
})

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test.each(["stalls", "breaks off"] as const)("a passed-on body (Gemini's JSON array stream) that %s ends the client's connection: cut short, never looking whole, within the chunk timeout", async (how) => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.write('[{"candidates":[{"content":{"parts":[{"text":"Hel"}]}}]}')
      if (how === "breaks off") setTimeout(() => res.socket?.destroy(), 50)
    })
    proxy = await proxyFor(upstream.url, stack, [], 400)
    const started = Date.now()
    const reply = await fetch(`${proxy.url}/v1beta/models/gemini-x:streamGenerateContent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: [] }) })
    expect(reply.status).toBe(200)
    const read = await reply.text().then(
      (text) => ({ ok: true, text }),
      () => ({ ok: false, text: "" })
    )
    expect(read.ok).toBe(false)
    expect(Date.now() - started).toBeLessThan(5_000)
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

test("a Retry-After given as a date: the retry's log event tells the wait that happens (the fleet's hold), not the policy's shorter delay", async () => {
  upstream = await rawUpstream((_req, res) => {
    if (upstream!.requests() === 1) {
      res.writeHead(503, { "content-type": "application/json", "retry-after": new Date(Date.now() + 2_000).toUTCString() })
      return res.end('{"error":{"message":"busy","type":"server_error"}}')
    }
    res.writeHead(200, SSE)
    res.end(healthyChat())
  })
  const events: Array<ProxyEvent> = []
  // Every budget's own wait is short but a rate limit's, which lets the fleet's hold run to 5 s.
  const short = { initialDelayMs: 100, maxDelayMs: 300 }
  const config = configWith(upstream.url, (c) => ({
    ...c,
    retry: { ...c.retry, request: { ...c.retry.request, ...short }, server: { ...c.retry.server, ...short }, unknown: { ...c.retry.unknown, ...short }, rateLimit: { ...c.retry.rateLimit, maxDelayMs: 5_000 } }
  }))
  proxy = await startProxy({ config, host: "127.0.0.1", port: 0, onEvent: (e) => events.push(e) })
  const started = Date.now()
  expect((await post(`${proxy.url}/v1/chat/completions`, chatRequest)).status).toBe(200)
  const waited = Date.now() - started
  const told = events.flatMap((e) => (e.type === "retry" ? [e.retry.delayMs] : []))
  expect(told).toHaveLength(1)
  // An HTTP date has whole seconds: the hold is 1–2 s from the 503.
  expect(told[0]!).toBeGreaterThan(900)
  expect(waited).toBeGreaterThanOrEqual(told[0]! - 50)
})

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test.each([true, false])("an error answered under a success status (200 {\"error\": …}, streamed request: %s) is asked for once more, then reaches the client as the failure it is", async (stream) => {
    const error = { error: { message: "model overloaded, try again", type: "server_error", code: "overloaded" } }
    let calls = 0
    upstream = await rawUpstream((_req, res) => {
      calls += 1
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(error))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const reply = await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...request("chat"), stream }) })
    expect(reply.status).toBe(502)
    expect(await reply.json()).toEqual(error)
    expect(calls).toBe(2)
    expect(records(events)[0]).toMatchObject({ outcome: "failed", status: 502 })
  }, 30_000)

  test("a whole reply object with an error member (a Responses object that failed, a completion with an `error` beside its choices) is the protocol's answer: passed on once", async () => {
    const bodies = [
      { path: "/v1/responses", body: { id: "resp_1", object: "response", status: "failed", output: [], error: { code: "server_error", message: "failed" } } },
      { path: "/v1/chat/completions", body: { id: "r", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "Fine." }, finish_reason: "stop" }], error: {} } }
    ]
    for (const { path, body } of bodies) {
      let calls = 0
      upstream = await rawUpstream((_req, res) => {
        calls += 1
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      })
      proxy = await proxyFor(upstream.url, stack, [])
      const reply = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(path.includes("responses") ? { model: "m", input: "hi" } : { ...request("chat"), stream: false }) })
      expect([reply.status, calls]).toEqual([200, 1])
      expect(await reply.json()).toEqual(body)
      await proxy.close()
      await upstream.close()
      proxy = undefined
      upstream = undefined
    }
  }, 30_000)

  test.each([
    ["an HTML page", "text/html", "<html><body>Sign in to continue</body></html>", "45 bytes of text/html, a page"],
    ["an empty body", "application/json", "", "an empty body"],
    ["JSON cut short", "application/json", '{"id":"r","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hel', "103 bytes of application/json, JSON that does not parse (cut short)"]
  ])("%s under 200 on a guarded path is no reply: asked for once more, then a 502 that says what came, logged as failed", async (_name, type, body, said) => {
    let calls = 0
    upstream = await rawUpstream((_req, res) => {
      calls += 1
      res.writeHead(200, { "content-type": type })
      res.end(body)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    for (const stream of [true, false]) {
      calls = 0
      const reply = await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...request("chat"), stream }) })
      expect([reply.status, calls]).toEqual([502, 2])
      const error = await reply.json()
      expect(error.error.message).toBe(`loopguard proxy: the upstream answered 200 with ${said}`)
      expect(JSON.stringify(error)).not.toContain("Sign in")
    }
    expect(records(events).map((r) => [r.outcome, r.status])).toEqual([["failed", 502], ["failed", 502]])
  }, 30_000)

  test("an error answered under a success status once, then a reply: the client gets the reply", async () => {
    let calls = 0
    upstream = await rawUpstream((_req, res) => {
      calls += 1
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(calls === 1 ? { error: { message: "busy" } } : { id: "r", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "Fine now." }, finish_reason: "stop" }] }))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const reply = await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...request("chat"), stream: false }) })
    expect(reply.status).toBe(200)
    expect((await reply.json()).choices[0].message.content).toBe("Fine now.")
    expect(records(events)[0]).toMatchObject({ outcome: "completed", retries: 1 })
  }, 30_000)
})

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test.each([true, false])("a body that says gzip and is not (streamed request: %s): the client gets a 502 that says it did not decompress, never an empty 200", async (stream) => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json", "content-encoding": "gzip" })
      res.end(stream ? replyEvents("chat", "Plain words.").join("") : JSON.stringify({ id: "r", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "Plain." }, finish_reason: "stop" }] }))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const reply = await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...request("chat"), stream }) })
    expect(reply.status).toBe(502)
    expect(await reply.text()).toContain("did not decompress")
    expect(records(events)[0]?.outcome).not.toBe("completed")
  }, 30_000)
})

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("a redirect is neither followed nor handed to the client: a 502 names where it pointed", async () => {
    let calls = 0
    upstream = await rawUpstream((_req, res) => {
      calls += 1
      res.writeHead(307, { location: "http://127.0.0.2:9/v1/chat/completions?token=abc" })
      res.end()
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const reply = await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", redirect: "manual", headers: { "content-type": "application/json" }, body: JSON.stringify(request("chat")) })
    expect(reply.status).toBe(502)
    expect(reply.headers.get("location")).toBeNull()
    const text = await reply.text()
    expect(text).toContain("redirected (HTTP 307) to http://127.0.0.2:9")
    expect(text).not.toContain("token=abc")
    expect(calls).toBe(1)
  }, 30_000)
})

describe("an error body larger than the proxy keeps", () => {
  test.each(STREAMED)("%s: the client gets the upstream's status and an error in its protocol's shape that parses, not a body cut at 1 MiB", async (protocol) => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: `bad request: ${"x".repeat(2 * 1024 * 1024)}`, type: "invalid_request_error" } }))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, "bun", events)
    const reply = await post(`${proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.status).toBe(400)
    const json = JSON.parse(reply.text)
    expect(JSON.stringify(json)).toContain("larger than the 1048576 bytes the proxy keeps")
    expect(reply.text.length).toBeLessThan(10_000)
  }, 30_000)
})

describe("a stream in a coding the proxy cannot read", () => {
  test.each(["zstd", "gzip, br"])("%s: the client gets an error naming the coding, not a stream that breaks off", async (coding) => {
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": coding })
      res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01, 0x02, 0x03]))
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, "bun", events)
    const reply = await post(`${proxy.url}/v1${PATHS.chat}`, request("chat"))
    expect(reply.status).toBe(502)
    expect(reply.text).toContain(`compressed its streamed reply as \`${coding}\``)
  }, 30_000)
})

describe.each(HTTP_STACKS)("%s http stack: an upstream that is down", (stack) => {
  test("after one request wore out its retries, the next get one attempt each, until one is answered", async () => {
    let broken = true
    upstream = await rawUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      if (!broken) return void res.end(replyEvents("chat", "Back up.").join(""))
      res.write("data: {\"id\":\"c\",\"choi")
      setTimeout(() => res.socket?.destroy(), 10)
    })
    const events: Array<ProxyEvent> = []
    proxy = await proxyFor(upstream.url, stack, events)
    const ask = async () => {
      const before = upstream!.requests()
      const reply = await post(`${proxy!.url}/v1${PATHS.chat}`, request("chat"))
      return { asked: upstream!.requests() - before, text: reply.text }
    }
    // The first wears out the budget (1 + 4 retries); while the upstream stays down, one attempt each.
    expect((await ask()).asked).toBe(5)
    expect((await ask()).asked).toBe(1)
    expect((await ask()).asked).toBe(1)
    // The first answer ends it: down again, a request gets its whole budget again.
    broken = false
    const up = await ask()
    expect([up.asked, up.text.includes("the upstream failed"), up.text.includes('"finish_reason":"stop"')]).toEqual([1, false, true])
    broken = true
    expect((await ask()).asked).toBe(5)
  }, 60_000)
})
