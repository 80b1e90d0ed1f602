/**
 * Upstreams that misbehave in ways the scripted server does not: a raw HTTP server whose reply is
 * written by hand, so the bytes after the protocol's terminator (a connection kept open, or reset),
 * a body that ends without the terminator, and a gzip-compressed stream can be sent as some servers
 * send them. What the client of the proxy gets must still be one well-formed reply.
 */
import { messagesFrames, responsesFrames, streamFrames, textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { gzipSync } from "node:zlib"
import { configWith, HTTP_STACKS, PATHS, post, records } from "./proxy.fixture.js"
import { proxyFor, rawUpstream, type RawUpstream } from "./raw-upstream.fixture.js"
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

let upstream: RawUpstream | undefined
let proxy: RunningProxy | undefined
afterEach(async () => {
  await proxy?.close()
  await upstream?.close()
  proxy = upstream = undefined
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
