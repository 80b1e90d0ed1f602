/**
 * The reply to a request on Bun's server, read as node's response is written: the status and
 * headers at `writeHead`, what is written (before and after the body is asked for) in order, one
 * "close" once it ends; and when the client leaves, `destroyed`, "close", and nothing more written.
 */
import { describe, expect, test } from "bun:test"
import { BodyTimedOut, BodyTooLarge, FetchClientReply, fetchClientRequest } from "./client-reply.js"

describe("FetchClientReply", () => {
  test("status, headers and every write, in order, then one close", async () => {
    const reply = new FetchClientReply(new AbortController().signal)
    let closes = 0
    reply.on("close", () => closes++)
    reply.writeHead(201, { "content-type": "text/event-stream", "set-cookie": ["a=1", "b=2"] })
    expect(reply.write("one ")).toBe(true)
    const res = await reply.response
    expect(res.status).toBe(201)
    expect(res.headers.get("content-type")).toBe("text/event-stream")
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"])
    reply.write(new TextEncoder().encode("two "))
    reply.end("three")
    expect(await res.text()).toBe("one two three")
    await Bun.sleep(0)
    expect(reply.writableFinished).toBe(true)
    expect(closes).toBe(1)
  })

  test("the client leaving: destroyed, close, and writes refused", async () => {
    const leave = new AbortController()
    const reply = new FetchClientReply(leave.signal)
    let closed = false
    reply.on("close", () => (closed = true))
    reply.writeHead(200, {})
    leave.abort()
    expect(reply.destroyed).toBe(true)
    expect(closed).toBe(true)
    expect(reply.write("late")).toBe(false)
  })

  test("a client gone before any answer still gets a response object (nobody reads it)", async () => {
    const leave = new AbortController()
    leave.abort()
    const reply = new FetchClientReply(leave.signal)
    expect((await reply.response).status).toBe(499)
  })
})

describe("fetchClientRequest", () => {
  const post = (body: string) => new Request("http://127.0.0.1/v1/chat/completions?x=1", { method: "POST", body, headers: { "Content-Type": "application/json" } })

  test("path and query, node-style headers, the whole body", async () => {
    const req = fetchClientRequest(post('{"a":1}'), "/v1/chat/completions?x=1")
    expect(req.url).toBe("/v1/chat/completions?x=1")
    expect(req.headers["content-type"]).toBe("application/json")
    expect((await req.body(1024, 60_000)).toString("utf8")).toBe('{"a":1}')
  })

  test("a body past the limit is refused, named by the config field", async () => {
    const err = await fetchClientRequest(post("x".repeat(2048)), "/").body(1024, 60_000).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BodyTooLarge)
    expect(String((err as Error).message)).toContain("proxy.maxRequestBytes (1024 bytes)")
  })

  /** A body sent in pieces with no declared length (chunked), as a streaming client sends it. */
  const streamed = (pieces: ReadonlyArray<string>) =>
    new Request("http://127.0.0.1/v1/responses", {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          for (const p of pieces) controller.enqueue(new TextEncoder().encode(p))
          controller.close()
        }
      })
    })

  test("a body with no declared length is read piece by piece, whole", async () => {
    const req = streamed(['{"input":', '"hi"}'])
    expect(req.headers.get("content-length")).toBeNull()
    expect((await fetchClientRequest(req, "/").body(1024, 60_000)).toString("utf8")).toBe('{"input":"hi"}')
  })

  test("a body with no declared length is refused once it passes the limit", async () => {
    const err = await fetchClientRequest(streamed(["x".repeat(600), "x".repeat(600)]), "/").body(1024, 60_000).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BodyTooLarge)
  })

  test("a body still coming at the deadline is refused, named by the config field", async () => {
    const stalled = new Request("http://127.0.0.1/", { method: "POST", body: new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"a":')) }) })
    const err = await fetchClientRequest(stalled, "/").body(1024, 50).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BodyTimedOut)
    expect(String((err as Error).message)).toContain("proxy.requestBodyTimeoutMs (50 ms)")
  })

  test("a declared length is read whole, and a declared length past the limit is refused before reading", async () => {
    const req = new Request("http://127.0.0.1/", { method: "POST", body: "y".repeat(1000), headers: { "content-length": "1000" } })
    expect((await fetchClientRequest(req, "/").body(1024, 60_000)).length).toBe(1000)
    const over = new Request("http://127.0.0.1/", { method: "POST", body: "z", headers: { "content-length": "4096" } })
    expect(await fetchClientRequest(over, "/").body(1024, 60_000).catch((e: unknown) => e)).toBeInstanceOf(BodyTooLarge)
  })
})
