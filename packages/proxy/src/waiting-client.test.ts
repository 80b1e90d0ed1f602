/**
 * An upstream that keeps a streamed reply open with keep-alives and no content (a model that queues
 * or thinks, sending empty chunks or pings): the client gets its response headers and a comment
 * after HELD_KEEP_ALIVE_MS, not all at once with the first content, so its HTTP client's header
 * timeout does not end a reply that is coming. The reply itself arrives whole after them.
 */
import { afterEach, expect, test } from "bun:test"
import { HELD_KEEP_ALIVE_MS, STILL_COMING } from "./relay.js"
import { HTTP_STACKS, records, startRig, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

// Seconds of keep-alives before the content: the comment is due after HELD_KEEP_ALIVE_MS, and a busy
// machine gets 3 s more before the headers would be late.
const KEEP_ALIVES = Math.ceil(HELD_KEEP_ALIVE_MS / 1000) + 4

test.each(HTTP_STACKS)(
  "%s http stack: a reply kept open without content: headers and a comment come while it waits; the content after them, whole",
  async (stack) => {
    // An empty-choices chunk each second (no content), then the answer.
    const chunks = [...Array.from({ length: KEEP_ALIVES }, () => ({ raw: '{"id":"c1","object":"chat.completion.chunk","choices":[]}' })), { text: "The answer is 42." }]
    rig = await startRig([{ type: "stream", chunks, chunkDelayMs: 1000 }], { proxy: { httpStack: stack } })
    const started = Date.now()
    const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "q" }] }) })
    const headersAfter = Date.now() - started
    const text = await res.text()
    const doneAfter = Date.now() - started
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    // The headers came while the upstream still sent no content (it sends it after KEEP_ALIVES seconds).
    expect(headersAfter).toBeLessThan((KEEP_ALIVES - 1) * 1000)
    expect(doneAfter).toBeGreaterThanOrEqual(KEEP_ALIVES * 1000 - 200)
    expect(text.startsWith(STILL_COMING)).toBe(true)
    expect(text).toContain("The answer is 42.")
    expect(text).toMatch(/data: \[DONE\]\n\n$/)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["completed"])
  },
  60_000
)

test(
  "a reply kept open without content that then fails: the client, which has its headers, gets the protocol's error event, of the upstream's kind",
  async () => {
    const pings = Array.from({ length: KEEP_ALIVES }, () => ({ raw: '{"id":"c1","object":"chat.completion.chunk","choices":[]}' }))
    rig = await startRig((_, i) =>
      i === 0
        ? { type: "stream", chunks: [...pings, { text: "never sent" }], chunkDelayMs: 1000, resetAfterChunks: KEEP_ALIVES }
        : { type: "error", status: 400, body: { error: { message: "the context is too long", type: "invalid_request_error" } } }
    )
    const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "q" }] }) })
    const text = await res.text()
    expect(res.status).toBe(200)
    expect(text.startsWith(STILL_COMING)).toBe(true)
    expect(text).not.toContain("never sent")
    const errorEvent = text.split("\n\n").find((e) => e.startsWith("data: {") && e.includes('"error"'))
    expect(errorEvent).toContain("the context is too long")
    // Named as the upstream's 400 is (a bad request, not a server error a client would retry).
    expect(JSON.parse(errorEvent!.slice("data: ".length)).error).toMatchObject({ type: "invalid_request_error", code: null })
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["upstream-error"])
  },
  60_000
)

test.each(HTTP_STACKS)(
  "%s http stack: an upstream that answers 200 and sends no byte for a while (a long prompt read first): headers and a comment come meanwhile, the reply whole after them",
  async (stack) => {
    rig = await startRig([{ type: "stream", chunks: [{ text: "The answer is 42." }], stallAfterChunks: 0, stallMs: KEEP_ALIVES * 1000 }], { proxy: { httpStack: stack } })
    const started = Date.now()
    const res = await fetch(`${rig.proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "q" }] }) })
    const headersAfter = Date.now() - started
    const text = await res.text()
    expect(res.status).toBe(200)
    expect(headersAfter).toBeLessThan((KEEP_ALIVES - 1) * 1000)
    expect(text.startsWith(STILL_COMING)).toBe(true)
    expect(text).toContain("The answer is 42.")
    expect(text).toMatch(/data: \[DONE\]\n\n$/)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["completed"])
  },
  60_000
)
