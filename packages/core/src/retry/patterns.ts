/**
 * The phrase and code tables the retry decision matches against. Kept as data so a provider
 * adapter can read (or extend) them without touching the decision logic. All entries are lower
 * case; matching lower-cases the haystack first.
 */

/**
 * Connection-level failures, looked for as whole words in the error's code, name, message and
 * every entry of its cause chain (never in a response body: a body means the connection worked).
 * Includes Node's system codes, undici's codes and Bun's fetch error codes.
 */
export const NETWORK_MARKERS: ReadonlyArray<string> = [
  "econnreset",
  "etimedout",
  "econnrefused",
  "econnaborted",
  "epipe",
  "enotfound",
  "eai_again",
  "enetunreach",
  "enetdown",
  "ehostunreach",
  "ehostdown",
  "und_err_socket",
  "und_err_closed",
  "und_err_connect_timeout",
  "und_err_headers_timeout",
  "und_err_body_timeout",
  "connectionrefused",
  "connectionclosed",
  "failedtoopensocket",
  "timeouterror",
  "fetch failed",
  "failed to fetch",
  "socket hang up",
  "other side closed",
  "terminated",
  "network error",
  "networkerror",
  "connection reset",
  "connection refused",
  "connection closed",
  "connection error"
]

/** The prompt no longer fits the model: retrying the same request cannot help. */
export const CONTEXT_OVERFLOW_MARKERS: ReadonlyArray<string> = [
  "context_length_exceeded",
  "context length exceeded",
  "maximum context length",
  "context window exceeded",
  "exceeds the context window",
  "exceeds the model's context",
  "model_context_window_exceeded",
  "prompt is too long",
  "input is too long",
  "too many input tokens",
  // llama.cpp server, Gemini, and OpenAI-compatible servers that say it in words only.
  "exceeds the available context size",
  "exceeds the maximum number of tokens",
  "reduce the length of the messages"
]

/**
 * Money or subscription quota used up (terminal), as opposed to a per-minute quota (rate limit)
 * or a code such as RESOURCE_EXHAUSTED (server). Only these specific phrases count.
 */
export const QUOTA_EXHAUSTED_MARKERS: ReadonlyArray<string> = [
  "insufficient_quota",
  "insufficient quota",
  "exceeded your current quota",
  "quota_exhausted",
  "quota exhausted",
  "quota has been exhausted",
  "credits_exhausted",
  "credits exhausted",
  "insufficient_credits",
  "insufficient credits",
  "insufficient_balance",
  "insufficient balance",
  "credit balance is too low",
  "out of credits",
  "free tier quota",
  "subscription quota",
  "billing_hard_limit_reached",
  "billing_not_active",
  "payment_required",
  "payment required"
]

/** Authentication or permission failures reported without a 401/403 status. */
export const AUTH_FAILURE_MARKERS: ReadonlyArray<string> = [
  "invalid_api_key",
  "invalid api key",
  "incorrect api key",
  "invalid x-api-key",
  "authentication_error",
  "authentication failed",
  "invalid_authentication",
  "permission_denied",
  "unauthorized"
]

/** Upstream stream read failures: the provider's own relay lost the model's stream. */
export const STREAM_FAILURE_MARKERS: ReadonlyArray<string> = [
  "stream_read_error",
  "upstream_error",
  "chunk_timeout",
  "stream_timeout"
]

/**
 * Errors the AI SDK raises for a response stream it could not read: a chunk that is not JSON or
 * not the expected shape. The connection worked and the server answered; the stream broke.
 */
export const CORRUPT_STREAM_ERROR_NAMES: ReadonlyArray<string> = [
  "AI_JSONParseError",
  "AI_TypeValidationError",
  "AI_InvalidResponseDataError"
]

/** Rate limiting by code (`rate_limit_exceeded`, `too_many_requests`) or by text. */
export const RATE_LIMIT_MARKERS: ReadonlyArray<string> = [
  "rate_limit",
  "rate limit",
  "rate-limit",
  "ratelimit",
  "too_many_requests",
  "too many requests"
]

/**
 * Server-side trouble named by a code. Any code containing one of these fragments counts
 * (MiMo Code's rule: codes containing "exhausted" or "unavailable"; plus overloaded and server_error,
 * which OpenAI and Anthropic send as stream error types).
 */
export const SERVER_CODE_FRAGMENTS: ReadonlyArray<string> = [
  "exhausted",
  "unavailable",
  "overloaded",
  "server_error",
  "internal_error"
]

/** OpenAI's overload code: the main session retries it silently and immediately. */
export const OVERLOADED_MARKERS: ReadonlyArray<string> = ["server_is_overloaded"]

/** A backend that will not accept a request ending with an assistant message (prefill). */
export const PREFILL_REJECTION_MARKERS: ReadonlyArray<string> = [
  "assistant message prefill",
  "does not support assistant message prefill",
  "prefill is not supported",
  "prefilling is not supported",
  "must end with a user message",
  "last message must be a user message",
  "last message must be from the user",
  "final message must be a user message",
  "expected last message to be a user message",
  "conversation must end with a user message",
  // Mistral's: "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant".
  "expected last role user or tool"
]

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** One case-insensitive whole-word regex for a marker table. */
export const wordRegex = (markers: ReadonlyArray<string>): RegExp =>
  new RegExp(`(?:^|[^a-z0-9_])(?:${markers.map(escapeRegExp).join("|")})(?![a-z0-9_])`, "i")

/** True when any haystack contains any marker as a substring (lower-cased). */
export const containsAny = (haystacks: ReadonlyArray<string>, markers: ReadonlyArray<string>): boolean =>
  haystacks.some((h) => {
    const lower = h.toLowerCase()
    return markers.some((m) => lower.includes(m))
  })
