/**
 * One upstream call and its retries. An attempt counts as answered only when the first byte of
 * the reply body arrived (a streamed reply's first event, or a whole JSON body), so a 429, a 5xx,
 * a reset or a stall before that is retried by the retry policy (budgets, Retry-After) and the
 * client never sees it. Past its budgets the last failure is what the client gets.
 */
import type { NormalizedError } from "@loopguard/core/model"
import { decide, initialRetryState, planRetry, recordRetry, type RetryBudgets } from "@loopguard/core/retry"
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http"
import { request as httpsRequest } from "node:https"
import { sleep, waitForTurn, type BackoffBoard } from "./backoff.js"
import type { OutageMemo } from "./outage.js"
import { plainBody } from "./body-bytes.js"
import { fetchHeadersOf } from "./client-reply.js"
import { FetchReply, type UpstreamReply } from "./fetch-reply.js"

/** Which HTTP client calls the upstream: fetch (Bun's own client, on Bun) or node:http (on Node). */
export type UpstreamClient = "fetch" | "node"

export interface UpstreamRoute {
  /** The full URL to call. */
  readonly url: URL
  /** The key the backoff board holds: the upstream's base URL without its credentials, and a tag of the client's own key (`backoffKeyFor`). */
  readonly key: string
  readonly budgets: RetryBudgets
  readonly retryableStatuses: ReadonlyArray<number>
  /** Longest wait for headers and for each body chunk. */
  readonly chunkTimeoutMs: number
  readonly client: UpstreamClient
}

export type Attempt =
  | {
      readonly ok: true
      readonly res: UpstreamReply
      /** The first body chunk, already read (null: the body was empty). */
      readonly first: Buffer | null
      /** Whether the body already ended (its `end` event may have passed before the caller listened). */
      readonly ended: () => boolean
      readonly abort: () => void
    }
  | {
      readonly ok: false
      readonly error: NormalizedError
      readonly body: Buffer | null
      readonly res: UpstreamReply | null
      /** The content-encoding `body` still has (a coding the proxy cannot read); absent when plain. */
      readonly bodyEncoding?: string
      /** The upstream's error body was past what the proxy keeps: `body` is null, the client gets the error in its protocol's shape with this status. */
      readonly bodyTooLarge?: number
      /**
       * The upstream answered 200 with an event stream that broke, stalled or ended before any
       * content: when no retry follows, the client gets what it would have got from the upstream,
       * a 200 stream, ended by the protocol's error event (an HTTP error of the proxy's would send
       * an agent into its longer retry policy for server errors, on top of the retries already made).
       */
      readonly streamOpened?: boolean
    }

/** An attempt the upstream answered. */
export type OpenAttempt = Extract<Attempt, { ok: true }>

/**
 * Why an attempt is retried, as the log says it: the kind of failure, and for one without an HTTP
 * status what happened (a stream that ended before any content is retried as a reset is, but no
 * reset happened: "connection failure (ECONNRESET)" alone blamed one).
 */
const retryReason = (kind: string, error: NormalizedError): string =>
  error.status === undefined && error.message !== "" && !kind.includes(error.message) ? `${kind}: ${error.message}` : kind

export interface RetryEvent {
  readonly attempt: number
  readonly delayMs: number
  readonly reason: string
  readonly status?: number
}

/** Error bodies are kept for the client (decompressed) up to this many bytes; the rest is read and dropped. */
const ERROR_BODY_KEPT_BYTES = 1024 * 1024

const headerRecord = (res: UpstreamReply): Record<string, string> =>
  Object.fromEntries(Object.entries(res.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v]])))

/**
 * The body's first `limit` bytes, read to its end; one silent for `idleMs` is cut there (`abort`)
 * with what came, so an error body that stalls does not hold the client past the chunk timeout.
 */
const readSome = (res: UpstreamReply, limit: number, idleMs: number, abort: () => void): Promise<{ readonly kept: Buffer; readonly size: number }> =>
  new Promise((resolve) => {
    const parts: Array<Buffer> = []
    let size = 0
    const done = () => {
      clearTimeout(timer)
      resolve({ kept: Buffer.concat(parts).subarray(0, limit), size })
    }
    const timer = setTimeout(() => {
      abort()
      done()
    }, idleMs)
    res.on("data", (b: Buffer) => {
      if (size < limit) parts.push(b)
      size += b.length
      timer.refresh()
    })
    res.on("end", done)
    res.on("error", done)
    res.resume()
  })

const failure = (message: string, code: string): Attempt => ({ ok: false, error: { message: connectionErrorText(message), code, phase: "request" }, body: null, res: null })

/** A connection error's message as people read it: without the advice Bun's fetch appends for its own callers. */
export const connectionErrorText = (message: string): string => message.replace(/\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?\s*$/, "")

/**
 * The failure of an attempt whose upstream answered with an HTTP error: its status, headers and
 * (some of its) body, decompressed when the proxy reads its coding.
 */
const httpFailure = async (res: UpstreamReply, idleMs: number, abort: () => void): Promise<Attempt> => {
  const status = res.statusCode ?? 502
  const { kept: raw, size } = await readSome(res, ERROR_BODY_KEPT_BYTES, idleMs, abort)
  // Cut at the limit, the body would reach the client as a whole one that is not (JSON that does not parse).
  if (size > ERROR_BODY_KEPT_BYTES) {
    const message = `HTTP ${status}; its error body (${size} bytes) was larger than the ${ERROR_BODY_KEPT_BYTES} bytes the proxy keeps`
    return { ok: false, error: { message, status, headers: headerRecord(res), phase: "request" }, body: null, res: null, bodyTooLarge: status }
  }
  const encoding = String(res.headers["content-encoding"] ?? "")
  const plain = plainBody(raw, encoding, ERROR_BODY_KEPT_BYTES)
  const b = plain ?? raw
  const error: NormalizedError = { message: `HTTP ${status}`, status, headers: headerRecord(res), body: b.toString("utf8"), phase: "request" }
  return { ok: false, error, body: b, res, ...(plain === null ? { bodyEncoding: encoding } : {}) }
}

const CLIENT_GONE: Attempt = { ok: false, error: { message: "the client went away", aborted: true }, body: null, res: null }

/**
 * A redirect is not followed, and not handed to the client either: its SDK would follow it past the
 * proxy, with the whole conversation, to wherever it points. The client gets a 502 that names where.
 */
const redirected = (status: number, location: string | undefined): Attempt => {
  let where = "another address"
  try {
    if (location !== undefined) where = new URL(location, "http://upstream.invalid").origin
  } catch {
    // A Location that is no URL: "another address".
  }
  return failure(`the upstream redirected (HTTP ${status}) to ${where}; loopguard proxy does not follow redirects: set the upstream to that address if it is the right one`, "redirect")
}

const isRedirect = (status: number): boolean => status >= 300 && status < 400

/**
 * The upstream asked every caller to wait longer than this request's retry budget allows: it is
 * not asked at all, and the client gets a 429 that says how long is left (`retry-after`).
 */
const heldBack = (leftMs: number): Attempt => {
  const seconds = String(Math.ceil(leftMs / 1000))
  return {
    ok: false,
    error: { message: `the upstream asked every caller to wait (Retry-After): ${seconds} s left, past this request's retry budget`, code: "rate_limit", status: 429, headers: { "retry-after": seconds }, phase: "request" },
    body: null,
    res: null
  }
}

/** Told each `everyMs` that an upstream which answered 200 with an event stream still sends no byte. */
export interface FirstByteWait {
  readonly everyMs: number
  readonly tell: () => void
}

/**
 * While an upstream that answered with an event stream sends no byte (a local model reading a long
 * prompt first), `waiting` is told every `everyMs`: the client, which has nothing yet, hears the reply
 * is coming before its HTTP client's header timeout ends it. Returns what stops the telling.
 */
const whileNoByte = (contentType: string | null | undefined, waiting: FirstByteWait | undefined): (() => void) => {
  if (waiting === undefined || !String(contentType ?? "").includes("text/event-stream")) return () => {}
  const timer = setInterval(waiting.tell, waiting.everyMs)
  return () => clearInterval(timer)
}

/**
 * One attempt: headers, then (for a 2xx) the first body chunk, each within the chunk timeout. The
 * request is cut when `signal` aborts (the client left).
 */
export const attempt = (route: UpstreamRoute, method: string, headers: OutgoingHttpHeaders, body: Buffer | null, signal: AbortSignal, waiting?: FirstByteWait): Promise<Attempt> =>
  route.client === "fetch" ? attemptFetch(route, method, headers, body, signal, waiting) : attemptNode(route, method, headers, body, signal, waiting)

/** The request headers as fetch takes them (length and framing are fetch's own). */
const fetchHeaders = (headers: OutgoingHttpHeaders): Headers => {
  const out = fetchHeadersOf(headers)
  out.delete("content-length")
  return out
}

/** `attempt` through fetch (Bun's own HTTP client). */
const attemptFetch = async (route: UpstreamRoute, method: string, headers: OutgoingHttpHeaders, body: Buffer | null, signal: AbortSignal, waiting?: FirstByteWait): Promise<Attempt> => {
  const stop = new AbortController()
  const onGone = () => stop.abort()
  signal.addEventListener("abort", onGone, { once: true })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    stop.abort()
  }, route.chunkTimeoutMs)
  try {
    // decompress: false: the body is passed on as the upstream sent it, as node:http does.
    const init = { method, headers: fetchHeaders(headers), body, signal: stop.signal, redirect: "manual", decompress: false } as RequestInit
    const res = await fetch(route.url, init)
    const reader = res.body?.getReader() ?? null
    if (res.status >= 400) {
      clearTimeout(timer)
      const reply = new FetchReply(res, reader)
      return await httpFailure(reply, route.chunkTimeoutMs, () => reply.cancel())
    }
    if (isRedirect(res.status)) {
      clearTimeout(timer)
      void reader?.cancel().catch(() => {})
      return redirected(res.status, res.headers.get("location") ?? undefined)
    }
    const stopTelling = whileNoByte(reader === null ? null : res.headers.get("content-type"), waiting)
    const first = reader === null ? { done: true as const, value: undefined } : await reader.read().finally(stopTelling)
    clearTimeout(timer)
    const reply = new FetchReply(res, first.done ? null : reader)
    const abort = () => {
      reply.cancel()
      stop.abort()
    }
    return { ok: true, res: reply, first: first.done ? null : Buffer.from(first.value.buffer, first.value.byteOffset, first.value.byteLength), ended: () => reply.ended, abort }
  } catch (e) {
    clearTimeout(timer)
    if (signal.aborted) return CLIENT_GONE
    if (timedOut) return failure(`no answer from the upstream within ${route.chunkTimeoutMs} ms`, "chunk_timeout")
    const err = e as NodeJS.ErrnoException
    return failure(err.message, err.code ?? "ECONNRESET")
  }
}

/** `attempt` through node:http. */
const attemptNode = (route: UpstreamRoute, method: string, headers: OutgoingHttpHeaders, body: Buffer | null, signal: AbortSignal, waiting?: FirstByteWait): Promise<Attempt> =>
  new Promise((resolve) => {
    const send = route.url.protocol === "https:" ? httpsRequest : httpRequest
    let settled = false
    let stopTelling = () => {}
    const settle = (a: Attempt) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      stopTelling()
      resolve(a)
    }
    const req = send(route.url, { method, headers, signal })
    let timer = setTimeout(() => {
      settle(failure(`no answer from the upstream within ${route.chunkTimeoutMs} ms`, "chunk_timeout"))
      req.destroy()
    }, route.chunkTimeoutMs)
    req.on("error", (e: NodeJS.ErrnoException) => settle(signal.aborted ? CLIENT_GONE : failure(e.message, e.code ?? "ECONNRESET")))
    req.on("response", (res) => {
      if ((res.statusCode ?? 502) >= 400) {
        clearTimeout(timer)
        void httpFailure(res, route.chunkTimeoutMs, () => req.destroy()).then(settle)
        return
      }
      if (isRedirect(res.statusCode ?? 502)) {
        req.destroy()
        settle(redirected(res.statusCode ?? 302, res.headers.location))
        return
      }
      let ended = false
      stopTelling = whileNoByte(res.headers["content-type"], waiting)
      const onData = (first: Buffer) => {
        res.pause()
        res.off("data", onData)
        settle({ ok: true, res, first, ended: () => ended, abort: () => req.destroy() })
      }
      res.once("end", () => {
        ended = true
        settle({ ok: true, res, first: null, ended: () => true, abort: () => req.destroy() })
      })
      res.on("data", onData)
      res.once("error", (e: NodeJS.ErrnoException) => settle(failure(e.message, e.code ?? "ECONNRESET")))
    })
    req.end(body ?? undefined)
  })

/** How long an upstream that wore out a request's retries gets one attempt per request: the request budget's deadline (30 s by default). */
const outageMs = (budgets: RetryBudgets): number => budgets.request.deadlineMs ?? 30_000

/** The longest a Retry-After holds an upstream: the longest wait of any retry budget (a rate limit's 5 min by default). */
export const longestHoldMs = (budgets: RetryBudgets): number => Math.max(...Object.values(budgets).map((b) => b.maxDelayMs))

/**
 * Attempts until one is answered or the retry policy gives up; every wait honours the fleet's hold on
 * this upstream. `outage`: an upstream that wore out a whole budget lately gets one attempt (outage.ts).
 */
export const callWithRetries = async (
  route: UpstreamRoute,
  board: BackoffBoard,
  send: () => Promise<Attempt>,
  signal: AbortSignal,
  onRetry: (e: RetryEvent) => void,
  outage?: OutageMemo
): Promise<Attempt> => {
  const started = Date.now()
  const once = outage?.active(route.key) === true
  let state = initialRetryState
  for (;;) {
    const left = await waitForTurn(board, route.key, signal, route.budgets.request.deadlineMs ?? Number.POSITIVE_INFINITY)
    // The client left while this request waited: nobody is there to answer, so the upstream is not asked.
    if (signal.aborted) return CLIENT_GONE
    if (left > 0) return heldBack(left)
    const result = await send()
    if (result.ok) outage?.clear(route.key)
    if (result.ok || signal.aborted) return result
    const decision = decide(result.error, { retryableStatuses: route.retryableStatuses })
    // The upstream asked everyone to wait: the whole fleet holds, not only this conversation, and
    // even when this one gives up (its wait is past its budget); never longer than any budget
    // waits, or a day's Retry-After would shut the upstream for a day, until a restart.
    const heldMs = decision.serverDelayMs === undefined ? 0 : Math.min(decision.serverDelayMs, longestHoldMs(route.budgets))
    if (heldMs > 0) await board.hold(route.key, Date.now() + heldMs)
    const outcome = planRetry(state, decision, route.budgets, Date.now() - started)
    // A rate limit has its own fleet-wide hold (the board); a down upstream gets one attempt a request.
    const down = decision.kind !== "terminal" && decision.kind !== "rate_limit"
    if ((once && down) || !outcome.retry) {
      if (down) outage?.mark(route.key, Date.now() + outageMs(route.budgets))
      return result
    }
    result.res?.resume()
    // The wait the log tells is the one that happens: the policy's delay, or the fleet's hold when longer.
    onRetry({ attempt: outcome.attempt, delayMs: Math.max(outcome.delayMs, heldMs), reason: retryReason(decision.reason, result.error), ...(result.error.status !== undefined ? { status: result.error.status } : {}) })
    await sleep(outcome.delayMs, signal)
    state = recordRetry(state, outcome)
  }
}
