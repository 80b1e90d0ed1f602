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
  return [...("head" in frames ? frames.head : []), ...frames.content, ...frames.trailer]
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
