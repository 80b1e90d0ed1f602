/**
 * `decide`: what kind of failure an error is and whether retrying can help (docs/retry.md).
 * Order matters: user abort, context overflow and exhausted quota are terminal whatever else the
 * error says; a connection failure without an HTTP error status is network (including the AI SDK's
 * mid-stream reset, which arrives as status 200); then the status decides; then codes and text.
 */
import type { ErrorPhase, NormalizedError } from "../model/stream.js"
import { serverHintMs } from "./hint.js"
import {
  AUTH_FAILURE_MARKERS,
  CONTEXT_OVERFLOW_MARKERS,
  containsAny,
  NETWORK_MARKERS,
  QUOTA_EXHAUSTED_MARKERS,
  RATE_LIMIT_MARKERS,
  SERVER_CODE_FRAGMENTS,
  STREAM_FAILURE_MARKERS,
  wordRegex,
  CORRUPT_STREAM_ERROR_NAMES
} from "./patterns.js"

export type RetryPhase = ErrorPhase
export type RetryScope = "request" | "live-step" | "max-candidate" | "max-judge"
export type RetryKind = "terminal" | "network" | "rate_limit" | "server" | "stream" | "unknown"

export interface RetryDecision {
  readonly retryable: boolean
  readonly phase: RetryPhase
  readonly scope: RetryScope
  readonly kind: RetryKind
  /** The server's own wait request, when it gave one (only on retryable decisions). */
  readonly serverDelayMs?: number
  /** Short human-readable why, for logs and the UI's terminal message. */
  readonly reason: string
}

export interface DecideContext {
  /**
   * HTTP statuses this adapter's provider uses for passing failures (as in MiMo Code: 404 for some
   * adapters): an error with one of them is a retryable `server` error instead of terminal.
   * A user abort stays terminal whatever its status.
   */
  readonly retryableStatuses?: ReadonlyArray<number>
  /** Overrides `error.phase`; default `request`. */
  readonly phase?: RetryPhase
  /** Default: `request` in the request phase, `live-step` in the stream phase. */
  readonly scope?: RetryScope
  /** Clock for HTTP-date `retry-after` (ms since epoch); default `Date.now()`. */
  readonly now?: number
}

const NETWORK_RE = wordRegex(NETWORK_MARKERS)

interface Classified {
  readonly kind: RetryKind
  readonly reason: string
}

/** The retry decision for a normalized error: kind, phase, scope, and whether a retry may help. */
export const decide = (error: NormalizedError, ctx: DecideContext = {}): RetryDecision => {
  const phase: RetryPhase = ctx.phase ?? error.phase ?? "request"
  const scope: RetryScope = ctx.scope ?? (phase === "request" ? "request" : "live-step")
  const classified = classify(error)
  const adapterRetryable =
    classified.kind === "terminal" && error.aborted !== true && error.status !== undefined && (ctx.retryableStatuses ?? []).includes(error.status)
  const { kind, reason } = adapterRetryable ? { kind: "server" as const, reason: `HTTP ${error.status} is retryable for this provider (retryableStatuses)` } : classified
  if (kind === "terminal") return { retryable: false, phase, scope, kind, reason }
  const hint = serverHintMs(error, ctx.now ?? Date.now())
  return { retryable: true, phase, scope, kind, reason, ...(hint !== undefined ? { serverDelayMs: hint } : {}) }
}

const terminal = (reason: string): Classified => ({ kind: "terminal", reason })

/** An error's retry kind from its status, code and message, or terminal with the reason. */
export const classify = (error: NormalizedError): Classified => {
  const code = error.code ?? ""
  // Text that may describe the failure, including what the server said in its body.
  const said = [error.message, code, error.body ?? ""]
  const status = error.status

  if (error.aborted === true) return terminal("aborted by the user")
  // The same bytes would come back: a limit passed or an answer that is not the protocol.
  if (isProtocolError(error)) return terminal("protocol violation")
  if (containsAny(said, CONTEXT_OVERFLOW_MARKERS)) return terminal("context overflow")
  if (containsAny(said, QUOTA_EXHAUSTED_MARKERS)) return terminal("quota or credits exhausted")

  const httpFailure = status !== undefined && (status < 200 || status >= 300)
  if (!httpFailure) {
    const marker = networkMarker(error)
    if (marker !== undefined) return { kind: "network", reason: `connection failure (${marker})` }
  }

  if (httpFailure) {
    const byStatus = classifyStatus(status)
    if (byStatus !== undefined) return byStatus
  }

  if (containsAny(said, AUTH_FAILURE_MARKERS)) return terminal("authentication failure")
  if (containsAny([code, error.message], STREAM_FAILURE_MARKERS)) return { kind: "stream", reason: `upstream stream failure (${code || "text"})` }
  if (!httpFailure && error.name !== undefined && CORRUPT_STREAM_ERROR_NAMES.includes(error.name)) {
    return { kind: "stream", reason: `unreadable stream chunk (${error.name})` }
  }
  if (containsAny([code, error.message], RATE_LIMIT_MARKERS)) return { kind: "rate_limit", reason: "rate limited" }
  if (containsAny([code], SERVER_CODE_FRAGMENTS)) return { kind: "server", reason: `server error (${code})` }
  if (error.isRetryable === true) return { kind: "unknown", reason: `provider marked retryable${status !== undefined ? ` (HTTP ${status})` : ""}` }
  return terminal(status !== undefined ? `unrecognised error (HTTP ${status})` : "unrecognised error")
}

/** Set by the HTTP layer (see @loopguard/ai-sdk's response limits): name ProtocolError, code `protocol`. */
export const isProtocolError = (error: NormalizedError): boolean => error.name === "ProtocolError" || error.code === "protocol"

/** The first network marker found in code, name, message or the cause chain. */
const networkMarker = (error: NormalizedError): string | undefined => {
  for (const h of [error.code ?? "", error.name ?? "", error.message, ...(error.causes ?? [])]) {
    const m = NETWORK_RE.exec(h)
    if (m !== null) return m[0].replace(/^[^a-z0-9_]/i, "")
  }
  return undefined
}

/** Statuses that decide on their own; `undefined` = let codes and text decide (e.g. 409, 413). */
const classifyStatus = (status: number): Classified | undefined => {
  if (status === 429) return { kind: "rate_limit", reason: "HTTP 429" }
  if (status === 408 || status === 425) return { kind: "server", reason: `HTTP ${status}` }
  if (status === 401 || status === 403) return terminal(`authentication failure (HTTP ${status})`)
  if (status === 402) return terminal("payment required (HTTP 402)")
  if (status === 404) return terminal("not found (HTTP 404)")
  if (status === 400 || status === 422) return terminal(`request rejected (HTTP ${status})`)
  if (status === 501 || status === 505) return terminal(`not supported by the server (HTTP ${status})`)
  if (status >= 500 && status <= 599) return { kind: "server", reason: `HTTP ${status}` }
  return undefined
}
