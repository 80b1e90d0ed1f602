/**
 * A `fetch` for the AI SDK providers that does not trust the server: the body is counted after
 * decompression and cut with a ProtocolError past `maxResponseBytes` (a gzip bomb cannot fill
 * memory), a single server-sent event past `maxEventBytes` is a ProtocolError too, and a 2xx
 * answer to a streaming request that is not `text/event-stream` is one, naming the content
 * type (instead of an empty stream that looks like a reply with no finish). A Chat Completions
 * stream also has the shapes the AI SDK cannot read made readable (chat-events.ts).
 */

import type { NormalizedError } from "@loopguard/core/model"
import { normalizeError } from "@loopguard/core/retry"
import { endedAtFinish, normalizeChatEvents } from "./chat-events.js"

/** Thrown (or streamed as the body's error) when the server breaks the protocol or a limit. */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError"
  readonly code = "protocol"
  readonly isRetryable = false
}

export interface ResponseLimits {
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
}

/** Error bodies are read for their message only; past this they are cut short, not failed. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024

const LF = 10
const CR = 13

/**
 * Counts bytes; fails past the total cap, and past the event cap since the last blank line. Lines
 * are found with `indexOf` (native) rather than a loop over every byte: a long reply is megabytes
 * of SSE, and the byte loop cost more than the rest of the transport.
 */
export const limitEventStream = (limits: ResponseLimits, events: boolean): TransformStream<Uint8Array, Uint8Array> => {
  let total = 0
  let eventBytes = 0
  let lineEmpty = true
  const countEvents = (chunk: Uint8Array) => {
    let from = 0
    // The next CR at or after `from` (-1: none left): the chunk is searched for CRs once, not per line.
    let nextCr = chunk.indexOf(CR)
    while (from < chunk.length) {
      const lf = chunk.indexOf(LF, from)
      const to = lf === -1 ? chunk.length : lf
      // Every byte of the line counts toward the event except CR.
      let bytes = to - from
      for (; nextCr !== -1 && nextCr < to; nextCr = chunk.indexOf(CR, nextCr + 1)) bytes--
      if (bytes > 0) {
        lineEmpty = false
        eventBytes += bytes
        if (eventBytes > limits.maxEventBytes) {
          throw new ProtocolError(`one server-sent event passed stream.maxEventBytes (${limits.maxEventBytes} bytes)`)
        }
      }
      if (lf === -1) return
      if (lineEmpty) eventBytes = 0
      lineEmpty = true
      from = lf + 1
    }
  }
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength
      if (total > limits.maxResponseBytes) {
        throw new ProtocolError(`the response passed stream.maxResponseBytes (${limits.maxResponseBytes} bytes after decompression)`)
      }
      if (events) countEvents(chunk)
      controller.enqueue(chunk)
    }
  })
}

/** Passes the first `max` bytes and then ends the body quietly. */
const truncateBody = (max: number): TransformStream<Uint8Array, Uint8Array> => {
  let seen = 0
  return new TransformStream({
    transform(chunk, controller) {
      if (seen >= max) return controller.terminate()
      controller.enqueue(seen + chunk.byteLength > max ? chunk.subarray(0, max - seen) : chunk)
      seen += chunk.byteLength
    }
  })
}

const wantsStream = (init: RequestInit | undefined): boolean => {
  const body = init?.body
  if (typeof body !== "string") return false
  try {
    return (JSON.parse(body) as { stream?: unknown }).stream === true
  } catch {
    return false
  }
}

const rebuilt = (response: Response, body: ReadableStream<Uint8Array>): Response => {
  const headers = new Headers(response.headers)
  // The body below is already decoded: its encoding and length no longer describe it.
  headers.delete("content-encoding")
  headers.delete("content-length")
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

/** A `fetch` whose response bodies are capped after decompression, whose single SSE events are capped, and whose 2xx non-event-stream answers are protocol errors. */
export const limitedFetch = (limits: ResponseLimits, inner: typeof fetch = globalThis.fetch): typeof fetch =>
  (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = await inner(input, init)
    if (response.body === null) return response
    if (!response.ok) return rebuilt(response, response.body.pipeThrough(truncateBody(MAX_ERROR_BODY_BYTES)))
    const streaming = wantsStream(init)
    const type = response.headers.get("content-type") ?? ""
    if (streaming && /^\s*application\/json\b/i.test(type)) return errorInJson(response)
    if (streaming && !/^\s*text\/event-stream\b/i.test(type)) {
      await response.body.cancel().catch(() => {})
      throw new ProtocolError(
        `the server answered HTTP ${response.status} with content type ${type === "" ? "(none)" : JSON.stringify(type)}, not an event stream`
      )
    }
    if (!streaming || !isChatCompletions(input)) return rebuilt(response, response.body.pipeThrough(limitEventStream(limits, streaming)))
    return rebuilt(response, endedAtFinish(response.body).pipeThrough(limitEventStream(limits, true)).pipeThrough(normalizeChatEvents()))
  }) as typeof fetch

/**
 * A 2xx JSON answer to a streaming request. A gateway that failed upstream answers so
 * (`{"error": {"message": "Provider returned error", "code": 502}}`): that is the error it carries,
 * given to the provider as an HTTP error of its code (else 502), so it is read, named and retried
 * as one. Any other JSON is no event stream: a ProtocolError.
 */
const errorInJson = async (response: Response): Promise<Response> => {
  const text = await new Response(response.body!.pipeThrough(truncateBody(MAX_ERROR_BODY_BYTES))).text()
  let error: unknown
  try {
    error = (JSON.parse(text) as { error?: unknown } | null)?.error
  } catch {
    error = undefined
  }
  if (error === null || typeof error !== "object") {
    throw new ProtocolError(`the server answered HTTP ${response.status} with content type ${JSON.stringify(response.headers.get("content-type"))}, not an event stream`)
  }
  const code = (error as { code?: unknown }).code
  const status = typeof code === "number" && Number.isInteger(code) && code >= 400 && code <= 599 ? code : 502
  const headers = new Headers(response.headers)
  headers.delete("content-encoding")
  headers.delete("content-length")
  return new Response(text, { status, headers })
}

/** Whether a request goes to a Chat Completions endpoint (whose events `normalizeChatEvents` knows). */
const isChatCompletions = (input: Parameters<typeof fetch>[0]): boolean => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
  return /\/chat\/completions(?:\?|$)/.test(url)
}

/** A ProtocolError anywhere in the `cause` chain (the SDK wraps body errors in its own). */
export const findProtocolError = (error: unknown): ProtocolError | undefined => {
  let current = error
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    if (current instanceof ProtocolError) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** normalizeError, except that a protocol violation wrapped by the SDK is reported as itself. */
export const normalizeProviderError = (error: unknown): NormalizedError => normalizeError(findProtocolError(error) ?? error)
