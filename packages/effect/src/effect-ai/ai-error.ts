/**
 * Effect AI `AiError` → loopguard `NormalizedError`. The HTTP details an Effect AI provider keeps
 * (`reason.http.response.status/headers`, `reason.http.body`) are handed to core's duck-typed
 * `normalizeError`, which also reads a provider code out of the body and walks the cause chain.
 * The reason's tag becomes `name` (so `NetworkError` reads as a connection failure), and a
 * reason-derived code fills in when the body named none, so the retry classifier sees the same
 * words it would see from the AI SDK backend.
 */
import { type NormalizedError } from "@loopguard/core/model"
import { normalizeError } from "@loopguard/core/retry"
import { Duration } from "effect"
import { AiError } from "effect/ai"

/** Codes the classifier's tables know, for reasons that carry no provider code of their own. */
export const AI_ERROR_REASON_CODES: Readonly<Record<string, string>> = {
  RateLimitError: "rate_limit_exceeded",
  QuotaExhaustedError: "insufficient_quota",
  AuthenticationError: "authentication_error",
  InternalProviderError: "internal_error",
  ContentPolicyError: "content_policy_violation",
  InvalidRequestError: "invalid_request_error",
  InvalidResponseError: "invalid_response",
  InvalidOutputError: "invalid_output",
  UnknownError: "unknown_error"
}

type Reason = AiError.AiErrorReason

const httpOf = (reason: Reason): { readonly status?: number; readonly headers?: unknown; readonly body?: string } => {
  const http = "http" in reason ? reason.http : undefined
  return {
    ...(http?.response !== undefined ? { status: http.response.status, headers: http.response.headers } : {}),
    ...(http?.body !== undefined ? { body: http.body } : {})
  }
}

const retryAfterMs = (reason: Reason): number | undefined =>
  "retryAfter" in reason && reason.retryAfter !== undefined ? Duration.toMillis(reason.retryAfter) : undefined

const fromReason = (reason: Reason, message: string): NormalizedError => {
  const http = httpOf(reason)
  const base = normalizeError({
    message,
    name: reason._tag,
    ...http,
    isRetryable: reason.isRetryable,
    ...("cause" in reason && reason.cause !== undefined ? { cause: reason.cause } : {})
  })
  const code = base.code ?? AI_ERROR_REASON_CODES[reason._tag]
  const wait = retryAfterMs(reason)
  // A parsed `retryAfter` without the header it came from still reaches the retry coordinator.
  const headers =
    wait !== undefined && base.headers?.["retry-after"] === undefined && base.headers?.["retry-after-ms"] === undefined
      ? { ...base.headers, "retry-after-ms": String(Math.round(wait)) }
      : base.headers
  return {
    ...base,
    ...(code !== undefined ? { code } : {}),
    ...(headers !== undefined ? { headers } : {})
  }
}

/** Never throws: anything that is not an AiError goes through core's `normalizeError` as is. */
export const normalizeAiError = (error: unknown): NormalizedError => {
  try {
    if (AiError.isAiError(error)) return fromReason(error.reason, error.message)
    if (AiError.isAiErrorReason(error)) return fromReason(error, error.message)
  } catch {
    // A malformed error object: fall through to the generic reader.
  }
  return normalizeError(error)
}
