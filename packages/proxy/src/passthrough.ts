/**
 * Every path the proxy does not guard (`/v1/models`, embeddings, …) goes upstream as it came:
 * same method, headers (hop-by-hop ones aside) and body, and the answer comes back as it was;
 * through node:http on Node's stack, through fetch on Bun's. Two bounds hold here as on guarded
 * paths: the request body stops at `proxy.maxRequestBytes` (413) and must arrive whole within
 * `proxy.requestBodyTimeoutMs` (408), and when the proxy holds the
 * upstream key, a whole (not streamed) answer has that key and the proxy token redacted, so an
 * upstream that echoes the key (an error body, a debug field) cannot hand it to a token client.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http"
import { request as httpsRequest } from "node:https"
import { Transform, type TransformCallback } from "node:stream"
import { bodyTimedOutMessage, fetchHeadersOf } from "./client-reply.js"
import { nodeHeadersOf } from "./fetch-reply.js"
import { authorized, clientHeaders, errorBody, heldKeyFor, holdsKeys, secretsOf, sendError, upstreamHeaders, upstreamUrlOf, type AuthPolicy } from "./http-util.js"
import type { ProxySettings } from "./proxy-settings.js"
import { plainBody, redactBytes } from "./body-bytes.js"
import { routeFor, type ResolvedRoute } from "./routes.js"

const UNAUTHORIZED = "loopguard proxy: present the proxy token as your API key"
const NO_UPSTREAM = "loopguard proxy: no upstream configured for this path"
const tooLarge = (limit: number) => `the request body passed proxy.maxRequestBytes (${limit} bytes)`
const tooLargeReply = (limit: number) => `loopguard proxy: the reply passed stream.maxResponseBytes (${limit} bytes) or came in an encoding the proxy cannot read`

/** A declared Content-Length past the limit: refused before a byte goes upstream. */
const declaredTooLarge = (length: string | undefined | null, limit: number): boolean => length !== undefined && length !== null && Number(length) > limit

const isEventStream = (contentType: string | undefined | null): boolean => String(contentType ?? "").includes("text/event-stream")

/** Whether the answer's body is read whole and redacted: the proxy holds the key, and it is no stream. */
const redactsBody = (auth: AuthPolicy, contentType: string | undefined | null): boolean => holdsKeys(auth) && !isEventStream(contentType)

/** The request body counted as it streams upstream (chunked bodies have no length to check first). */
class BodyLimit extends Transform {
  private seen = 0
  constructor(private readonly limit: number, private readonly onOver: () => void) {
    super()
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length
    if (this.seen > this.limit) return this.onOver()
    done(null, chunk)
  }
}

/** The upstream request's headers: the client's, with the key policy applied; a whole answer asked for uncompressed when it is to be redacted. */
const forwardedHeaders = (headers: IncomingMessage["headers"], settings: ProxySettings, auth: AuthPolicy, route: ResolvedRoute) => {
  const out = upstreamHeaders(headers, [settings.sessionHeader], auth, null, false, heldKeyFor(auth, route))
  if (holdsKeys(auth)) out["accept-encoding"] = "identity"
  return out
}

/** The answer read whole (at most `limit` bytes; null past it), decoded, with the held secrets redacted. */
const readRedacted = async (chunks: AsyncIterable<Uint8Array>, encoding: string | undefined, limit: number, secrets: ReadonlyArray<string>): Promise<Buffer | null> => {
  const parts: Array<Buffer> = []
  let size = 0
  for await (const chunk of chunks) {
    size += chunk.length
    if (size > limit) return null
    parts.push(Buffer.from(chunk))
  }
  const plain = plainBody(Buffer.concat(parts), encoding)
  return plain === null ? null : redactBytes(plain, secrets)
}

/**
 * A body passed on as it streams (node:http): an upstream that breaks off, or stays silent past the
 * chunk timeout, ends the client's connection too, so the client sees the answer cut short (never
 * one that looks whole, never a wait without end).
 */
const pipeWatched = (answer: IncomingMessage, res: ServerResponse, idleMs: number): void => {
  const silence = setTimeout(() => answer.destroy(), idleMs)
  const broke = () => {
    clearTimeout(silence)
    if (!answer.complete) res.destroy()
  }
  answer.on("data", () => silence.refresh())
  answer.on("end", () => clearTimeout(silence))
  answer.on("error", broke)
  answer.on("aborted", broke)
  answer.on("close", broke)
  answer.pipe(res)
}

/** node:http: the upstream's answer to the client, whole and redacted or piped as it came. */
const answerNode = (answer: IncomingMessage, res: ServerResponse, settings: ProxySettings, auth: AuthPolicy, idleMs: number): void => {
  const secrets = secretsOf(auth)
  const status = answer.statusCode ?? 502
  if (!redactsBody(auth, answer.headers["content-type"])) {
    res.writeHead(status, clientHeaders(answer.headers, {}, true, secrets))
    pipeWatched(answer, res, idleMs)
    return
  }
  readRedacted(answer, answer.headers["content-encoding"], settings.maxResponseBytes, secrets).then(
    (body) => {
      if (body === null) return sendError(res, null, 502, tooLargeReply(settings.maxResponseBytes))
      res.writeHead(status, { ...clientHeaders(answer.headers, {}, false, secrets), "content-length": String(body.length) })
      res.end(body)
    },
    (e: unknown) => sendError(res, null, 502, `loopguard proxy: the upstream failed: ${e instanceof Error ? e.message : String(e)}`)
  )
}

export const passThrough = (req: IncomingMessage, res: ServerResponse, settings: ProxySettings, auth: AuthPolicy): void => {
  if (!authorized(req.headers, auth, req.url ?? "")) return sendError(res, null, 401, UNAUTHORIZED)
  const limit = settings.maxRequestBytes
  if (declaredTooLarge(req.headers["content-length"], limit)) return sendError(res, null, 413, tooLarge(limit))
  const route = routeFor(settings.routing, undefined, req.url ?? "/")
  if (route === null) return sendError(res, null, 502, NO_UPSTREAM)
  const url = upstreamUrlOf(route.base, req.url ?? "/", auth)
  const send = url.protocol === "https:" ? httpsRequest : httpRequest
  const headers = forwardedHeaders(req.headers, settings, auth, route)
  if (req.headers["content-length"] !== undefined) headers["content-length"] = req.headers["content-length"]
  const upstream = send(url, { method: req.method ?? "GET", headers }, (answer) => answerNode(answer, res, settings, auth, route.chunkTimeoutMs))
  upstream.on("error", (e) => sendError(res, null, 502, `loopguard proxy: the upstream failed: ${e.message}`))
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy()
  })
  const counted = new BodyLimit(limit, () => {
    // Past the limit: the upstream never gets the rest, the client gets its 413 (unless already answered).
    req.unpipe(counted)
    upstream.destroy()
    sendError(res, null, 413, tooLarge(limit))
  })
  const stalled = setTimeout(() => {
    // The body stalled: the upstream never gets a part of it as if it were whole, and the connection closes.
    req.unpipe(counted)
    upstream.destroy()
    sendError(res, null, 408, bodyTimedOutMessage(settings.requestBodyTimeoutMs), { connection: "close" })
  }, settings.requestBodyTimeoutMs)
  const bodyDone = () => clearTimeout(stalled)
  req.once("end", bodyDone)
  req.once("close", bodyDone)
  req.pipe(counted).pipe(upstream)
}

/** An error answer as a fetch Response (Bun's server). */
const errorResponse = (status: number, message: string, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(errorBody(null, status, message), { status, headers: { "content-type": "application/json", ...headers } })

/** Why a request body was not passed on whole: past the size limit, or still coming at the deadline. */
interface BodyBreach {
  tooLarge: boolean
  timedOut: boolean
}

/**
 * The request body as it streams upstream, ending in an error past `limit` bytes or when it is not
 * whole `timeoutMs` after the request came (`breach` then says which).
 */
const limitedBody = (body: ReadableStream<Uint8Array> | null, limit: number, timeoutMs: number, breach: BodyBreach): ReadableStream<Uint8Array> | null => {
  if (body === null) return null
  let seen = 0
  let deadline: ReturnType<typeof setTimeout> | undefined
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        deadline = setTimeout(() => {
          breach.timedOut = true
          // The upstream may have stopped reading already (it answered early): then the stream is closed.
          try {
            controller.error(new Error(bodyTimedOutMessage(timeoutMs)))
          } catch {}
        }, timeoutMs)
        deadline.unref?.()
      },
      transform(chunk, controller) {
        seen += chunk.length
        if (seen <= limit) return controller.enqueue(chunk)
        breach.tooLarge = true
        controller.error(new Error(tooLarge(limit)))
      },
      flush: () => clearTimeout(deadline)
    })
  )
}

/** The answer to a body not passed on whole; null when it was. */
const breachResponse = (breach: BodyBreach, settings: ProxySettings): Response | null => {
  if (breach.tooLarge) return errorResponse(413, tooLarge(settings.maxRequestBytes))
  if (breach.timedOut) return errorResponse(408, bodyTimedOutMessage(settings.requestBodyTimeoutMs), { connection: "close" })
  return null
}

/**
 * A body passed on as it streams (fetch): an upstream that breaks off, or stays silent past the chunk
 * timeout, ends the client's connection too (errored with no value: the runtime then closes it
 * without printing a stack), so the client sees the answer cut short, never one that looks whole.
 */
const watchedBody = (body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let silence: ReturnType<typeof setTimeout> | undefined
      const silent = new Promise<"silent">((resolve) => (silence = setTimeout(() => resolve("silent"), idleMs)))
      try {
        const next = await Promise.race([reader.read(), silent])
        if (next === "silent") {
          reader.cancel().catch(() => {})
          controller.error(undefined)
        } else if (next.done) controller.close()
        else controller.enqueue(next.value)
      } catch {
        controller.error(undefined)
      } finally {
        clearTimeout(silence)
      }
    },
    cancel: (reason) => reader.cancel(reason).catch(() => {})
  })
}

/** fetch: the upstream's answer to the client, whole and redacted or streamed as it came. */
const answerFetch = async (answer: Response, settings: ProxySettings, auth: AuthPolicy, idleMs: number): Promise<Response> => {
  const secrets = secretsOf(auth)
  const headers = nodeHeadersOf(answer.headers)
  if (answer.body === null) return new Response(null, { status: answer.status, headers: fetchHeadersOf(clientHeaders(headers, {}, true, secrets)) })
  if (!redactsBody(auth, answer.headers.get("content-type"))) {
    return new Response(watchedBody(answer.body, idleMs), { status: answer.status, headers: fetchHeadersOf(clientHeaders(headers, {}, true, secrets)) })
  }
  const body = await readRedacted(answer.body as unknown as AsyncIterable<Uint8Array>, answer.headers.get("content-encoding") ?? undefined, settings.maxResponseBytes, secrets)
  if (body === null) return errorResponse(502, tooLargeReply(settings.maxResponseBytes))
  return new Response(new Uint8Array(body), { status: answer.status, headers: fetchHeadersOf({ ...clientHeaders(headers, {}, false, secrets), "content-length": String(body.length) }) })
}

/** `passThrough` on Bun's server: the request goes upstream through fetch, and the answer comes back as passThrough's does. */
export const passThroughFetch = async (request: Request, pathAndQuery: string, settings: ProxySettings, auth: AuthPolicy): Promise<Response> => {
  const incoming = nodeHeadersOf(request.headers)
  if (!authorized(incoming, auth, pathAndQuery)) return errorResponse(401, UNAUTHORIZED)
  const limit = settings.maxRequestBytes
  if (declaredTooLarge(request.headers.get("content-length"), limit)) return errorResponse(413, tooLarge(limit))
  const route = routeFor(settings.routing, undefined, pathAndQuery)
  if (route === null) return errorResponse(502, NO_UPSTREAM)
  const hasBody = request.method !== "GET" && request.method !== "HEAD"
  const breach: BodyBreach = { tooLarge: false, timedOut: false }
  try {
    // decompress: false: the body is passed on as the upstream sent it, its content-encoding with it.
    const body = hasBody ? limitedBody(request.body, limit, settings.requestBodyTimeoutMs, breach) : null
    const init = { method: request.method, headers: fetchHeadersOf(forwardedHeaders(incoming, settings, auth, route)), body, duplex: "half", redirect: "manual", decompress: false, signal: request.signal }
    const answer = await fetch(upstreamUrlOf(route.base, pathAndQuery, auth), init as RequestInit)
    return breachResponse(breach, settings) ?? (await answerFetch(answer, settings, auth, route.chunkTimeoutMs))
  } catch (e) {
    return breachResponse(breach, settings) ?? errorResponse(502, `loopguard proxy: the upstream failed: ${e instanceof Error ? e.message : String(e)}`)
  }
}
