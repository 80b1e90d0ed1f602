/**
 * A client that leaves mid-reply, on both HTTP stacks: the proxy closes the upstream request
 * instead of reading the rest of the reply for nobody, and records the request as `client-gone`.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { HTTP_STACKS, records, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const within = async (ms: number, ok: () => boolean): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (!ok() && Date.now() < deadline) await Bun.sleep(20)
  return ok()
}

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("the client leaves after the first events: the upstream request is closed, the record says client-gone", async () => {
    // 400 events 20 ms apart: 8 s of reply, far longer than the test waits for the close.
    rig = await startRig([textStream("word ".repeat(400), { chunkSize: 5, chunkDelayMs: 20 })], { proxy: { httpStack: stack } })
    const leave = new AbortController()
    const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, {
      method: "POST",
      signal: leave.signal,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "talk" }] })
    })
    const reader = res.body!.getReader()
    await reader.read()
    leave.abort()
    await reader.read().catch(() => undefined)
    const upstream = rig.server.requests[0]!
    expect(await within(30_000, () => upstream.outcome !== undefined)).toBe(true)
    expect(upstream.closedEarly).toBe(true)
    expect(upstream.chunksWritten).toBeLessThan(400)
    expect(await within(30_000, () => records(rig!.events).length === 1)).toBe(true)
    expect(records(rig.events)[0]?.outcome).toBe("client-gone")
  }, 60_000)
})
