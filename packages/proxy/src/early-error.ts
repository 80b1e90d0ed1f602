/**
 * An upstream that answers 200 and then, before any content, an error event ("overloaded", a rate
 * limit) or silence has not answered yet. Anthropic's API, for one, may send `message_start` and
 * only then the `overloaded_error`; the relay holds opening events back until the first content,
 * so nothing has reached the client: the attempt reads on to the first content, and an error event
 * or a stall before it is a failed attempt, which the retry policy treats like the HTTP error it
 * stands for.
 */
import type { NormalizedError } from "@loopguard/core/model"
import type { UpstreamReply } from "./fetch-reply.js"
import { parseJson, type Protocol } from "./protocol.js"
import { SseSplitter } from "./sse.js"

/** What a stream's first bytes hold so far. */
export type FirstEvents =
  | { readonly kind: "error"; readonly error: NormalizedError }
  /** Only events that open the reply (response.created, message_start, ping…). */
  | { readonly kind: "opening" }
  /** Content (text, reasoning, a call) or the reply's end. */
  | { readonly kind: "answered" }
  /** No whole event yet: the first one is still arriving (or the body is not events at all). */
  | { readonly kind: "partial" }

const errorOf = (data: string): NormalizedError => {
  const e = parseJson(data) ?? {}
  const inner = e.error ?? e.response?.error ?? e
  // The error's own code; an Anthropic error names its kind in `type` ("overloaded_error"); a Gemini
  // error has an HTTP status as its code and names its kind in `status` ("UNAVAILABLE").
  const status = typeof inner?.code === "number" ? inner.code : undefined
  const code = String((status === undefined ? inner?.code : undefined) ?? (typeof inner?.status === "string" ? inner.status : undefined) ?? (inner !== e ? inner?.type : undefined) ?? "upstream_error")
  return { message: String(inner?.message ?? data).slice(0, 500), code, ...(status !== undefined ? { status } : {}), body: data, phase: "request" }
}

/**
 * The events at the start of a stream, read as its chunks come: one splitter and one watch over all
 * of them, so each event is read once. (Read again from the start at each chunk, an upstream that
 * sent thousands of pings or empty deltas before its first content cost time growing with the square
 * of their number, on the event loop every stream shares.)
 */
export class FirstEventsReader {
  private readonly watch: ReturnType<Protocol["watch"]>
  private readonly splitter = new SseSplitter()
  private events = 0

  constructor(protocol: Protocol, body: unknown) {
    this.watch = protocol.watch(body)
  }

  /** What the stream's bytes hold once `chunk` is added to those pushed before. */
  push(chunk: Uint8Array): FirstEvents {
    for (const event of this.splitter.push(chunk)) {
      this.events += 1
      const seen = this.watch.see(event)
      if (seen.text !== undefined || seen.reasoning !== undefined || seen.toolCall === true || seen.end === true || seen.finishing === true) return { kind: "answered" }
      if (seen.error === true) return { kind: "error", error: errorOf(event.data) }
    }
    return this.events === 0 ? { kind: "partial" } : { kind: "opening" }
  }
}

/** The next chunk of the reply, or why none came: the body ended, broke, or stayed silent for `timeoutMs`. */
const nextChunk = (res: UpstreamReply, timeoutMs: number): Promise<Uint8Array | "ended" | "broke" | "silent"> =>
  new Promise((resolve) => {
    const done = (result: Uint8Array | "ended" | "broke" | "silent") => {
      clearTimeout(timer)
      res.pause()
      res.off("data", onData)
      res.off("end", onEnd)
      res.off("error", onBroke)
      res.off("aborted", onBroke)
      resolve(result)
    }
    const onData = (chunk: Uint8Array) => done(chunk)
    const onEnd = () => done("ended")
    const onBroke = () => done("broke")
    const timer = setTimeout(() => done("silent"), timeoutMs)
    res.on("data", onData)
    res.on("end", onEnd)
    res.on("error", onBroke)
    res.on("aborted", onBroke)
    res.resume()
  })

/**
 * A streamed reply read on to its first content: the bytes read so far, or the error that stands
 * for the attempt (with the bytes read up to the upstream's error event, when it sent one).
 */
export type UntilContent = { readonly ok: true; readonly first: Buffer } | { readonly ok: false; readonly error: NormalizedError; readonly read?: Buffer }

/** A stream that ended before any content, or with no body at all: nothing reached the client, so it is retried as a reset is. */
export const ENDED_BEFORE_CONTENT: NormalizedError = { message: "the upstream ended the reply before any content", code: "ECONNRESET", phase: "request" }

/**
 * Reads on while the reply has only opened (or its first event is still arriving), each chunk
 * within `timeoutMs`. The bytes read go on to the relay as the reply's first chunk. A body that
 * ends here is a failed attempt, but for one that held no whole event at all: not events (a JSON
 * body sent as a stream), it goes to the client as it came.
 */
export const untilContent = async (
  protocol: Protocol,
  body: unknown,
  res: UpstreamReply,
  first: Buffer,
  ended: () => boolean,
  limits: { readonly timeoutMs: number; readonly maxEventBytes: number },
  /**
   * Called each `everyMs` the upstream keeps the reply open with no content (its keep-alives, an
   * opening event and pings): the client, which has had no byte yet, is told it is still coming.
   */
  waiting?: { readonly everyMs: number; readonly tell: () => void }
): Promise<UntilContent> => {
  const { timeoutMs } = limits
  const reader = new FirstEventsReader(protocol, body)
  const chunks: Array<Uint8Array> = [first]
  let bytes = first.length
  const read = () => (chunks.length === 1 ? first : Buffer.concat(chunks, bytes))
  let told = Date.now()
  let seen = reader.push(first)
  for (;;) {
    if (seen.kind === "error") return { ok: false, error: seen.error, read: read() }
    // An opening past the event limit is not read on: the relay refuses it (stream.maxEventBytes).
    if (seen.kind === "answered" || bytes > limits.maxEventBytes) return { ok: true, first: read() }
    const notEvents = seen.kind === "partial" && bytes > 0
    if (ended()) return notEvents ? { ok: true, first: read() } : { ok: false, error: ENDED_BEFORE_CONTENT }
    const next = await nextChunk(res, timeoutMs)
    if (next === "ended") return notEvents ? { ok: true, first: read() } : { ok: false, error: ENDED_BEFORE_CONTENT }
    if (next === "silent") return { ok: false, error: { message: `the upstream opened the reply and sent nothing more for ${timeoutMs} ms`, code: "chunk_timeout", phase: "request" } }
    if (next === "broke") return { ok: false, error: { message: "the upstream connection broke before any content", code: "ECONNRESET", phase: "request" } }
    chunks.push(next)
    bytes += next.length
    seen = reader.push(next)
    if (waiting !== undefined && Date.now() - told >= waiting.everyMs) {
      told = Date.now()
      waiting.tell()
    }
  }
}
