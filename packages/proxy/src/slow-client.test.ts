/**
 * A client that stops reading, on both HTTP stacks: the proxy stops reading the upstream too
 * (backpressure), so a reply it cannot pass on is not buffered whole in the proxy.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { HTTP_STACKS, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const EVENTS = 2_000
const EVENT_CHARS = 32 * 1024

/** A reply of `events` events of 32 KB through a proxy on `stack`, its stream opened and one chunk read. */
const openedStream = async (stack: (typeof HTTP_STACKS)[number], events: number, chunkTimeoutMs?: number) => {
  const text = "abcdefgh ".repeat(Math.ceil((events * EVENT_CHARS) / 9)).slice(0, events * EVENT_CHARS)
  rig = await startRig([textStream(text, { chunkSize: EVENT_CHARS })], {
    proxy: { httpStack: stack },
    config: (c) => ({ ...c, repeat: { ...c.repeat, enabled: false }, stream: { ...c.stream, ...(chunkTimeoutMs !== undefined ? { chunkTimeoutMs } : {}), maxResponseBytes: 1024 * 1024 * 1024 } })
  })
  const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "talk" }] })
  })
  const reader = res.body!.getReader()
  await reader.read()
  return reader
}

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("the client reads one chunk and stops: the upstream is held far short of the whole reply", async () => {
    // 2 000 events of 32 KB (~64 MB): more than the sockets and buffers between the three can hold.
    const reader = await openedStream(stack, EVENTS)
    // Long enough for an unpaused proxy to read the whole reply from the upstream on a loaded machine.
    await Bun.sleep(3_000)
    const written = rig!.server.requests[0]!.chunksWritten
    await reader.cancel()
    expect(written).toBeLessThan(EVENTS / 2)
  }, 60_000)
})

describe.each(HTTP_STACKS)("%s http stack: a client that pauses", (stack) => {
  test("longer than the chunk timeout, then reads on: the whole reply arrives, the upstream is not blamed for the relay's own pause", async () => {
    const reader = await openedStream(stack, 400, 1_000)
    await Bun.sleep(2_500)
    let body = ""
    const decoder = new TextDecoder()
    for (let r = await reader.read(); !r.done; r = await reader.read()) body += decoder.decode(r.value, { stream: true })
    expect(body).not.toContain("went silent")
    expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true)
  }, 60_000)
})
