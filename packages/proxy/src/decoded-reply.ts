/**
 * A guarded reply the upstream compressed although the proxy asked for none (`accept-encoding:
 * identity`): the relay reads its text, so the body is decompressed on the way, and the client gets
 * it plain, without the encoding header. Other paths keep their encoding (passthrough).
 */
import { EventEmitter } from "node:events"
import type { IncomingHttpHeaders } from "node:http"
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from "node:zlib"
import type { UpstreamReply } from "./fetch-reply.js"
import { contentCodingOf } from "./body-bytes.js"
import type { Attempt, OpenAttempt } from "./upstream.js"

/** A decompressing stream for the reply's coding; null when it is plain (or a coding the proxy cannot read: passed on named). */
const decompressorFor = (encoding: string): Gunzip | null => {
  const coding = contentCodingOf(encoding)
  if (coding === "gzip") return createGunzip()
  if (coding === "deflate") return createInflate()
  if (coding === "br") return createBrotliDecompress() as unknown as Gunzip
  return null
}

/** The upstream's body through `zlib`, as an UpstreamReply of its own (the plain bytes, headers without the encoding). */
class DecodedReply extends EventEmitter implements UpstreamReply {
  readonly statusCode: number | undefined
  readonly headers: IncomingHttpHeaders
  ended = false

  constructor(private readonly source: UpstreamReply, private readonly zlib: Gunzip) {
    super()
    this.statusCode = source.statusCode
    const { "content-encoding": _encoding, "content-length": _length, ...rest } = source.headers
    this.headers = rest
    zlib.on("data", (chunk: Buffer) => this.emit("data", chunk))
    zlib.on("end", () => {
      this.ended = true
      this.emit("end")
    })
    // A body that does not decompress broke mid-reply, as a reset would.
    zlib.on("error", (e: Error) => {
      this.ended = true
      this.emit("error", new Error(`the reply did not decompress (${e.message})`))
    })
    source.on("data", (chunk) => zlib.write(chunk))
    source.on("end", () => zlib.end())
    source.on("error", (e) => this.emit("error", e))
    source.on("aborted", () => this.emit("aborted"))
  }

  pause(): this {
    this.zlib.pause()
    this.source.pause()
    return this
  }

  resume(): this {
    this.zlib.resume()
    this.source.resume()
    return this
  }
}

const isEventStream = (opened: OpenAttempt): boolean => String(opened.res.headers["content-type"] ?? "").includes("text/event-stream")

/**
 * A stream in a coding the proxy cannot read (`zstd`, `gzip, br`): neither its guard nor the client
 * could read its events as they come. The attempt failed, and says which coding.
 */
const unreadableStream = (opened: OpenAttempt, encoding: string): Attempt => {
  opened.abort()
  const message = `the upstream compressed its streamed reply as \`${encoding.trim().slice(0, 40)}\`, which the proxy cannot read (gzip, deflate and br it can; it asks for none)`
  return { ok: false, error: { message, code: "unsupported_encoding", phase: "request" }, body: null, res: null }
}

/**
 * `opened` with its body decompressed when the upstream encoded it; as it was otherwise. The first
 * plain chunk is read before it is handed back (null for an empty body), as an attempt's first is,
 * within `timeoutMs`: an upstream that sends a compressed header and then nothing failed the
 * attempt, as a stall before the first byte does.
 */
export const decodedAttempt = async (opened: OpenAttempt, timeoutMs: number): Promise<Attempt> => {
  const encoding = String(opened.res.headers["content-encoding"] ?? "")
  const zlib = decompressorFor(encoding)
  if (zlib === null) return contentCodingOf(encoding) === null && isEventStream(opened) ? unreadableStream(opened, encoding) : opened
  const reply = new DecodedReply(opened.res, zlib)
  reply.pause()
  const first = await new Promise<Buffer | null | "silent" | Error>((resolve) => {
    const onData = (chunk: Buffer) => {
      reply.pause()
      settle(chunk)
    }
    const settle = (chunk: Buffer | null | "silent" | Error) => {
      clearTimeout(timer)
      reply.off("data", onData)
      reply.off("end", onEnd)
      reply.off("error", onError)
      resolve(chunk)
    }
    const onEnd = () => settle(null)
    const onError = (e: Error) => settle(e)
    const timer = setTimeout(() => settle("silent"), timeoutMs)
    reply.on("data", onData)
    reply.on("end", onEnd)
    reply.on("error", onError)
    if (opened.first !== null) zlib.write(opened.first)
    if (opened.ended()) zlib.end()
    reply.resume()
  })
  if (first === "silent") {
    // The cut connection's error has nobody left to hear it.
    reply.on("error", () => {})
    opened.abort()
    return { ok: false, error: { message: `no decompressed byte from the upstream within ${timeoutMs} ms`, code: "chunk_timeout", phase: "request" }, body: null, res: null }
  }
  if (first instanceof Error) {
    // A body that does not decompress from its first byte (a false `content-encoding`) is no empty reply: the attempt failed, and says why.
    reply.on("error", () => {})
    opened.abort()
    return { ok: false, error: { message: first.message, code: "decode_error", phase: "request" }, body: null, res: null }
  }
  return { ok: true, res: reply, first, ended: () => reply.ended, abort: opened.abort }
}
