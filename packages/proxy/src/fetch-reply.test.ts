/**
 * A fetch reply read as node's IncomingMessage is: data as Buffers while flowing, nothing while
 * paused, "end" once, "error" on a broken read, and nothing at all after the proxy cancels it.
 */
import { describe, expect, test } from "bun:test"
import { FetchReply, nodeHeadersOf } from "./fetch-reply.js"

/** A Response whose body gives `parts`, then ends (or, with `fail`, breaks). */
const replyOf = (parts: ReadonlyArray<string>, fail = false): Response => {
  const bytes = parts.map((p) => new TextEncoder().encode(p))
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = bytes.shift()
        if (next !== undefined) controller.enqueue(next)
        else if (fail) controller.error(new Error("socket hang up"))
        else controller.close()
      }
    }),
    { status: 200, headers: { "content-type": "text/event-stream", "X-Upstream": "a" } }
  )
}

/** Everything a reply emits until it ends, breaks or `ms` pass. */
const collect = (reply: FetchReply, ms = 2_000): Promise<{ data: string; ended: boolean; error: string | null }> =>
  new Promise((resolve) => {
    let data = ""
    const done = (ended: boolean, error: string | null) => resolve({ data, ended, error })
    const timer = setTimeout(() => done(false, null), ms)
    reply.on("data", (b: Buffer) => (data += b.toString("utf8")))
    reply.on("end", () => (clearTimeout(timer), done(true, null)))
    reply.on("error", (e: Error) => (clearTimeout(timer), done(false, e.message)))
    reply.resume()
  })

describe("FetchReply", () => {
  test("flows as Buffers once resumed, then ends once; status and headers as node names them", async () => {
    const res = replyOf(["data: a\n\n", "data: b\n\n"])
    const reply = new FetchReply(res, res.body!.getReader())
    expect(reply.statusCode).toBe(200)
    expect(reply.headers["x-upstream"]).toBe("a")
    expect(await collect(reply)).toEqual({ data: "data: a\n\ndata: b\n\n", ended: true, error: null })
    expect(reply.ended).toBe(true)
  })

  test("paused, nothing flows until resumed", async () => {
    const res = replyOf(["one", "two"])
    const reply = new FetchReply(res, res.body!.getReader())
    let seen = ""
    const pauseOnFirst = (b: Buffer) => {
      seen += b.toString("utf8")
      reply.pause()
      reply.off("data", pauseOnFirst)
    }
    reply.on("data", pauseOnFirst)
    reply.resume()
    await Bun.sleep(50)
    expect(seen).toBe("one")
    expect(await collect(reply)).toEqual({ data: "two", ended: true, error: null })
  })

  test("a broken body is an error event; with nobody listening it is not thrown", async () => {
    const res = replyOf(["part"], true)
    expect(await collect(new FetchReply(res, res.body!.getReader()))).toEqual({ data: "part", ended: false, error: "socket hang up" })
    const silent = replyOf([], true)
    const quiet = new FetchReply(silent, silent.body!.getReader())
    quiet.resume()
    await Bun.sleep(20)
    expect(quiet.ended).toBe(true)
  })

  test("cancelled by the proxy: no data, no end, no error after it", async () => {
    const res = replyOf(["a", "b", "c"])
    const reply = new FetchReply(res, res.body!.getReader())
    reply.cancel()
    expect(await collect(reply, 100)).toEqual({ data: "", ended: false, error: null })
  })

  test("a body already read to its end still says end when resumed", async () => {
    const reply = new FetchReply(new Response("x"), null)
    expect(reply.ended).toBe(true)
    expect(await collect(reply)).toEqual({ data: "", ended: true, error: null })
  })

  test("repeated set-cookie headers stay a list", () => {
    const headers = new Headers([["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"], ["Content-Type", "text/plain"]])
    expect(nodeHeadersOf(headers)).toEqual({ "content-type": "text/plain", "set-cookie": ["a=1", "b=2"] })
  })
})
