/**
 * The client's side of a guarded request, whichever server took it: node:http's request and
 * response have this shape, and a request to Bun's own server (`Bun.serve`) is given it here. On
 * Bun the runtime's own server costs far less per chunk written than its node:http server (see
 * docs/proxy.md, "What the proxy costs"), so the handler and the relay stay one for both.
 */
import { EventEmitter } from "node:events"
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from "node:http"
import { nodeHeadersOf } from "./fetch-reply.js"

/** What the handler reads of the client's request. */
export interface ClientRequest {
  readonly method: string | undefined
  /** The path and query. */
  readonly url: string | undefined
  readonly headers: IncomingHttpHeaders
  /**
   * The whole body; BodyTooLarge past `limit` bytes (nothing more is buffered), BodyTimedOut when it
   * is not whole `timeoutMs` after the call (the rest is not read).
   */
  readonly body: (limit: number, timeoutMs: number) => Promise<Buffer>
}

/** What the handler and the relay write to the client. */
export interface ClientReply {
  readonly destroyed: boolean
  readonly headersSent: boolean
  readonly writableFinished: boolean
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown
  /** False when the client reads slower than the reply comes: wait for "drain". */
  write(chunk: string | Uint8Array): boolean
  end(chunk?: string | Uint8Array): unknown
  on(event: "close", listener: () => void): unknown
  once(event: "drain", listener: () => void): unknown
}

export class BodyTooLarge extends Error {}

const tooLarge = (limit: number) => new BodyTooLarge(`the request body passed proxy.maxRequestBytes (${limit} bytes)`)

/** A client that stalls mid-upload: without a deadline it would hold its request (and a socket) forever. */
export class BodyTimedOut extends Error {}

export const bodyTimedOutMessage = (timeoutMs: number): string =>
  `the request body did not arrive whole within proxy.requestBodyTimeoutMs (${timeoutMs} ms)`

/** `read`, or BodyTimedOut after `timeoutMs` (`stop` then lets go of the body). */
const withinTime = <A>(read: Promise<A>, timeoutMs: number, stop: () => void): Promise<A> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new BodyTimedOut(bodyTimedOutMessage(timeoutMs)))
    }, timeoutMs)
    read.then(
      (a) => (clearTimeout(timer), resolve(a)),
      (e: unknown) => (clearTimeout(timer), reject(e))
    )
  })

/** A node:http request as the handler reads it. */
export const nodeClientRequest = (req: IncomingMessage): ClientRequest => ({
  method: req.method,
  url: req.url,
  headers: req.headers,
  body: (limit, timeoutMs) => withinTime(readNode(req, limit), timeoutMs, () => req.removeAllListeners("data"))
})

const readNode = (req: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Array<Buffer> = []
    let size = 0
    req.on("data", (b: Buffer) => {
      size += b.length
      if (size > limit) {
        req.removeAllListeners("data")
        req.resume()
        reject(tooLarge(limit))
        return
      }
      parts.push(b)
    })
    req.on("end", () => resolve(Buffer.concat(parts)))
    req.on("error", reject)
  })

/** A fetch Request's body, read up to `limit` bytes. */
const readLimited = async (request: Request, limit: number): Promise<Buffer> => {
  const declared = request.headers.get("content-length")
  if (Number(declared ?? 0) > limit) throw tooLarge(limit)
  if (request.body === null) return Buffer.alloc(0)
  // A declared length bounds the body (the server holds the client to it): read it whole, natively.
  if (declared !== null) return Buffer.from(await request.arrayBuffer())
  const reader = request.body.getReader()
  const parts: Array<Uint8Array> = []
  let size = 0
  for (let c = await reader.read(); !c.done; c = await reader.read()) {
    size += c.value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    parts.push(c.value)
  }
  return Buffer.concat(parts)
}

/** A request to Bun's server as the handler reads it. */
export const fetchClientRequest = (request: Request, pathAndQuery: string): ClientRequest => ({
  method: request.method,
  url: pathAndQuery,
  headers: nodeHeadersOf(request.headers),
  body: (limit, timeoutMs) => withinTime(readLimited(request, limit), timeoutMs, () => {})
})

/** node's outgoing headers as fetch Headers (a list becomes repeated headers). */
export const fetchHeadersOf = (headers: OutgoingHttpHeaders): Headers => {
  const out = new Headers()
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) out.append(name, v)
    else out.set(name, String(value))
  }
  return out
}

/** Bun's direct-stream controller (the parts used): writes go to the socket on `flush`. */
interface DirectController {
  write(chunk: string | Uint8Array): number | Promise<number>
  flush(): number | Promise<number>
  close(): void
}

/**
 * The reply to a request on Bun's server: `response` resolves at `writeHead` with a body that
 * streams what is written, each write flushed at once (an event is sent the moment it is whole).
 * "close" is emitted when the reply ended or the client left; "drain" after a write the socket
 * could not take at once.
 */
export class FetchClientReply extends EventEmitter implements ClientReply {
  headersSent = false
  writableFinished = false
  destroyed = false
  readonly response: Promise<Response>
  private answer!: (r: Response) => void
  private controller: DirectController | null = null
  /** Written before the server asked for the body. */
  private pending: Array<string | Uint8Array> = []
  private endPull: (() => void) | null = null

  constructor(signal: AbortSignal) {
    super()
    this.response = new Promise((resolve) => (this.answer = resolve))
    if (signal.aborted) queueMicrotask(() => this.gone())
    else signal.addEventListener("abort", () => this.gone(), { once: true })
  }

  writeHead(status: number, headers: OutgoingHttpHeaders): this {
    if (this.headersSent) return this
    this.headersSent = true
    const body = new ReadableStream({
      type: "direct",
      pull: (controller: DirectController) => {
        this.controller = controller
        for (const chunk of this.pending) controller.write(chunk)
        this.pending = []
        if (this.writableFinished) return void this.closeBody()
        void controller.flush()
        return new Promise<void>((resolve) => (this.endPull = resolve))
      },
      cancel: () => this.gone()
    } as unknown as UnderlyingDefaultSource<Uint8Array>)
    this.answer(new Response(body, { status, headers: fetchHeadersOf(headers) }))
    return this
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.destroyed || this.writableFinished) return false
    if (!this.headersSent) this.writeHead(200, {})
    if (this.controller === null) {
      this.pending.push(chunk)
      return true
    }
    try {
      // A socket that cannot take more makes the write (or the flush) return a promise of when it can.
      const wrote = this.controller.write(chunk)
      const flushed = this.controller.flush()
      const full = wrote instanceof Promise ? wrote : flushed instanceof Promise ? flushed : null
      if (full === null) return true
      full.then(
        () => this.emit("drain"),
        () => this.gone()
      )
      return false
    } catch {
      this.gone()
      return false
    }
  }

  end(chunk?: string | Uint8Array): this {
    if (this.destroyed || this.writableFinished) return this
    if (chunk !== undefined && chunk.length > 0) this.write(chunk)
    else if (!this.headersSent) this.writeHead(200, {})
    this.writableFinished = true
    if (this.controller !== null) this.closeBody()
    queueMicrotask(() => this.emit("close"))
    return this
  }

  private closeBody(): void {
    try {
      this.controller?.close()
    } catch {
      // The client already left: nothing to close.
    }
    this.endPull?.()
    this.endPull = null
  }

  /** The client left (or the socket broke): nothing more is written. */
  private gone(): void {
    if (this.destroyed || this.writableFinished) return
    this.destroyed = true
    if (!this.headersSent) this.answer(new Response(null, { status: 499 }))
    this.closeBody()
    this.emit("close")
  }
}
