/**
 * The upstream reply as the proxy reads it, whichever HTTP client fetched it: node's
 * IncomingMessage has this shape, and a fetch Response is given it by `FetchReply`. On Bun, fetch
 * is the runtime's own HTTP client and costs far less per chunk than its node:http client (see
 * docs/proxy.md, "What the proxy costs"), so the relay, the retries and the whole-reply path stay
 * one whichever client is used.
 */
import { EventEmitter } from "node:events"
import type { IncomingHttpHeaders } from "node:http"

export interface UpstreamReply {
  readonly statusCode?: number | undefined
  readonly headers: IncomingHttpHeaders
  on(event: "data", listener: (chunk: Buffer) => void): unknown
  on(event: "end" | "aborted", listener: () => void): unknown
  on(event: "error", listener: (e: Error) => void): unknown
  once(event: "end", listener: () => void): unknown
  off(event: "data", listener: (chunk: Buffer) => void): unknown
  off(event: "end" | "aborted", listener: () => void): unknown
  off(event: "error", listener: (e: Error) => void): unknown
  pause(): unknown
  resume(): unknown
}

/** A fetch Response's headers as node names them (lowercase; repeated set-cookie kept as a list). */
export const nodeHeadersOf = (headers: Headers): IncomingHttpHeaders => {
  const out: IncomingHttpHeaders = {}
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value
  })
  const cookies = headers.getSetCookie()
  if (cookies.length > 0) out["set-cookie"] = cookies
  return out
}

/**
 * A fetch reply's body as node-style events: "data" (a Buffer per read), "end" once, "error" on
 * a broken read; paused until `resume`. After `cancel` (the proxy closed it) nothing more is emitted.
 */
export class FetchReply extends EventEmitter implements UpstreamReply {
  readonly statusCode: number
  readonly headers: IncomingHttpHeaders
  private paused = true
  private pumping = false
  private bodyEnded = false
  private endEmitted = false
  private cancelled = false

  /** `reader`: the body still to read (null: there is none, or its last read already said done). */
  constructor(res: Response, private readonly reader: ReadableStreamDefaultReader<Uint8Array> | null) {
    super()
    this.statusCode = res.status
    this.headers = nodeHeadersOf(res.headers)
    this.bodyEnded = reader === null
  }

  /** Whether the body ended (or was cancelled). */
  get ended(): boolean {
    return this.bodyEnded || this.cancelled
  }

  pause(): this {
    this.paused = true
    return this
  }

  resume(): this {
    this.paused = false
    if (this.cancelled) return this
    if (this.bodyEnded) queueMicrotask(() => this.emitEnd())
    else if (!this.pumping) void this.pump()
    return this
  }

  cancel(): void {
    if (this.cancelled || this.bodyEnded) return
    this.cancelled = true
    this.reader?.cancel().catch(() => {})
  }

  private emitEnd(): void {
    if (this.endEmitted || this.cancelled) return
    this.endEmitted = true
    this.emit("end")
  }

  private async pump(): Promise<void> {
    this.pumping = true
    try {
      while (!this.paused && !this.cancelled && !this.bodyEnded) {
        const c = await this.reader!.read()
        if (this.cancelled) return
        if (c.done) {
          this.bodyEnded = true
          return this.emitEnd()
        }
        this.emit("data", Buffer.from(c.value.buffer, c.value.byteOffset, c.value.byteLength))
      }
    } catch (e) {
      if (this.cancelled) return
      this.bodyEnded = true
      // With nobody listening for errors, an "error" event would throw: the reply just stops.
      if (this.listenerCount("error") > 0) this.emit("error", e instanceof Error ? e : new Error(String(e)))
    } finally {
      this.pumping = false
    }
  }
}
