/**
 * A client that sends its headers and part of its body, then nothing, does not hold its request (and a
 * socket) open forever: past `proxy.requestBodyTimeoutMs` it gets 408 in its protocol, the connection
 * closes, and nothing went upstream, on guarded and forwarded paths, on both HTTP stacks.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { createServer } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { HTTP_STACKS, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** Sends the request line, headers and `sent` of a body declared `declared` bytes long; resolves with all the server wrote before it closed. */
const stalledUpload = (port: number, path: string, declared: number, sent: string, giveUpMs: number): Promise<{ answer: string; closed: boolean }> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    const done = (closed: boolean) => {
      clearTimeout(giveUp)
      socket.destroy()
      resolve({ answer, closed })
    }
    const giveUp = setTimeout(() => done(false), giveUpMs)
    socket.on("data", (b) => (answer += b.toString("utf8")))
    socket.on("close", () => done(true))
    socket.on("error", () => {})
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${sent}`)
  })

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  const start = () =>
    startRig(() => textStream("ok"), { config: (c) => ({ ...c, proxy: { ...c.proxy, requestBodyTimeoutMs: 300 } }), proxy: { httpStack: stack } })

  test("a guarded request whose body stalls gets 408 in its protocol and its connection closed; nothing goes upstream", async () => {
    rig = await start()
    const chat = await stalledUpload(rig.proxy.port, "/v1/chat/completions", 1000, '{"model":"m",', 10_000)
    expect(chat.closed).toBe(true)
    expect(chat.answer).toStartWith("HTTP/1.1 408")
    expect(chat.answer).toContain("proxy.requestBodyTimeoutMs (300 ms)")
    const messages = await stalledUpload(rig.proxy.port, "/v1/messages", 1000, '{"model":"m",', 10_000)
    expect(messages.answer).toStartWith("HTTP/1.1 408")
    expect(messages.answer).toContain('"type":"error"')
    expect(rig.server.requests.length).toBe(0)
  }, 30_000)

  test("a forwarded request whose body stalls gets 408 and its connection closed; the upstream never gets a whole body", async () => {
    // An upstream that answers only once it has read the whole body (as a file upload's does).
    const bodies: Array<string> = []
    const upstream = createServer((req, res) => {
      let body = ""
      req.on("data", (b: Buffer) => (body += b.toString("utf8")))
      req.on("end", () => {
        bodies.push(body)
        res.end("{}")
      })
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    try {
      const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
      rig = await startRig(() => textStream("ok"), { config: (c) => ({ ...c, proxy: { ...c.proxy, upstream: base, requestBodyTimeoutMs: 300 } }), proxy: { httpStack: stack } })
      const files = await stalledUpload(rig.proxy.port, "/v1/files", 1000, "part of a file", 10_000)
      expect(files.closed).toBe(true)
      expect(files.answer).toStartWith("HTTP/1.1 408")
      expect(files.answer).toContain("proxy.requestBodyTimeoutMs")
      expect(bodies).toEqual([])
    } finally {
      upstream.closeAllConnections()
      await new Promise((resolve) => upstream.close(resolve))
    }
  }, 30_000)

  test("a body that arrives whole in time is served as before", async () => {
    rig = await start()
    const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: "hi" }] })
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("[DONE]")
  }, 30_000)
})
