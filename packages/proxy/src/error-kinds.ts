/**
 * Each protocol's name for the kind of an HTTP failure, so an error the proxy writes (a whole body,
 * or an error event once the stream began) says what its status says: a client retries an overload
 * or a rate limit, and does not retry a bad request or a refused key.
 */

/** A 4xx other than 401 and 429: the request is at fault (too large, a path that cannot be served), not the server. */
export const isRequestFault = (status: number): boolean => status >= 400 && status < 500 && status !== 429

/** Gemini's status word for an HTTP status. */
export const geminiStatus = (status: number): string =>
  status === 401
    ? "UNAUTHENTICATED"
    : status === 403
    ? "PERMISSION_DENIED"
    : status === 404
    ? "NOT_FOUND"
    : status === 429
    ? "RESOURCE_EXHAUSTED"
    : status === 502 || status === 503
    ? "UNAVAILABLE"
    : isRequestFault(status)
    ? "INVALID_ARGUMENT"
    : "INTERNAL"

/** Anthropic's error type for an HTTP status. */
export const messagesType = (status: number): string =>
  status === 401
    ? "authentication_error"
    : status === 403
    ? "permission_error"
    : status === 404
    ? "not_found_error"
    : status === 413
    ? "request_too_large"
    : status === 429
    ? "rate_limit_error"
    : status === 529
    ? "overloaded_error"
    : isRequestFault(status)
    ? "invalid_request_error"
    : "api_error"

/** OpenAI's error type and code for an HTTP status (a wait asked for is a rate limit, not a bad request). */
export const openAiError = (status: number): { readonly type: string; readonly code: string | null } =>
  status === 401
    ? { type: "invalid_request_error", code: "invalid_api_key" }
    : status === 429
    ? { type: "rate_limit_error", code: "rate_limit_exceeded" }
    : { type: isRequestFault(status) ? "invalid_request_error" : "server_error", code: null }
