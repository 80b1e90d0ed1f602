import { describe, expect, test } from "bun:test"
import { PassThrough } from "node:stream"
import { untilContent } from "./early-error.js"
import type { Protocol, StreamWatch } from "./protocol.js"
import { chatProtocol } from "./protocols/chat.js"

/** The Chat Completions protocol with a count of the events its watches read. */
const counted = () => {
  const count = { seen: 0 }
  const protocol: Protocol = {
    ...chatProtocol,
    watch: (body) => {
      const watch = chatProtocol.watch(body)
      const wrapped: StreamWatch = Object.create(watch)
      wrapped.see = (event) => ((count.seen += 1), watch.see(event))
      return wrapped
    }
  }
  return { protocol, count }
}

const content = `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "hi" } }] })}\n\n`

describe("untilContent", () => {
  test("thousands of pings before the first content are each read once (not the whole opening again at every chunk)", async () => {
    const { protocol, count } = counted()
    const upstream = Object.assign(new PassThrough(), { headers: {} })
    upstream.pause()
    const pings = 3000
    for (let i = 0; i < pings; i++) upstream.write(`: ping ${i}\n\n`)
    upstream.write(content)
    const first = Buffer.from(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] })}\n\n`)
    const r = await untilContent(protocol, {}, upstream, first, () => false, { timeoutMs: 5_000, maxEventBytes: 4 * 1024 * 1024 })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const text = r.first.toString("utf8")
    expect(text.startsWith(first.toString("utf8"))).toBe(true)
    expect(text.endsWith(content)).toBe(true)
    expect(text.split(": ping ").length - 1).toBe(pings)
    // The opening chunk, each ping, the content: one reading each (read again at every chunk, 4.5 million).
    expect(count.seen).toBe(pings + 2)
  })

  test("empty deltas before the content: each event read once, and the bytes handed on whole", async () => {
    const { protocol, count } = counted()
    const upstream = Object.assign(new PassThrough(), { headers: {} })
    upstream.pause()
    const empty = `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: {} }] })}\n\n`
    for (let i = 0; i < 2000; i++) upstream.write(empty)
    upstream.write(content)
    const r = await untilContent(protocol, {}, upstream, Buffer.from(empty), () => false, { timeoutMs: 5_000, maxEventBytes: 4 * 1024 * 1024 })
    expect(r.ok && r.first.length).toBe(empty.length * 2001 + content.length)
    expect(count.seen).toBe(2002)
  })
})
