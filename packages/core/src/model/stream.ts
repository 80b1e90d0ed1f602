/**
 * loopguard's own stream-part and error types. Every backend (AI SDK today, Effect AI later)
 * maps its provider stream into these, so monitors, the classifier, the retry coordinator and
 * the RunLoop never see a provider's types.
 */

/** Why a generation ended. `unknown` = the stream ended without saying (never taken as done). */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other" | "unknown"

export const FINISH_REASONS: ReadonlyArray<FinishReason> = [
  "stop",
  "length",
  "tool-calls",
  "content-filter",
  "error",
  "other",
  "unknown"
]

export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly totalTokens?: number
  readonly reasoningTokens?: number
  readonly cachedInputTokens?: number
  /** The output count is loopguard's estimate of what streamed (a cut or failed step the server sent no usage for). */
  readonly estimated?: boolean
}

/** Which part of a request an error happened in: before anything streamed, or after. */
export type ErrorPhase = "request" | "stream"

/**
 * A provider error reduced to what the retry coordinator needs. Built from an AI SDK
 * `APICallError`, an error part, a thrown network error, or a loopguard-internal failure.
 */
export interface NormalizedError {
  readonly message: string
  /** Error class name as reported (`APICallError`, `TypeError`, `AbortError` ...). */
  readonly name?: string
  /** HTTP status, when there was a response. A mid-stream reset arrives as 200. */
  readonly status?: number
  /** Response headers, lower-cased names. */
  readonly headers?: Readonly<Record<string, string>>
  /** Provider or system error code (`ECONNRESET`, `rate_limit_exceeded`, `server_is_overloaded`). */
  readonly code?: string
  /** Raw response body, if any. */
  readonly body?: string
  /** The provider's own opinion, when it gave one. */
  readonly isRetryable?: boolean
  /** Set by loopguard when it knows where the error happened. */
  readonly phase?: ErrorPhase
  /** Messages of the cause chain, outermost first (`fetch failed`, `terminated`, `ECONNRESET`). */
  readonly causes?: ReadonlyArray<string>
  /** The user (or a parent fiber) aborted the request. */
  readonly aborted?: boolean
}

export type StreamPart =
  | { readonly type: "start" }
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | { readonly type: "tool-input-start"; readonly id: string; readonly name: string }
  | { readonly type: "tool-input-delta"; readonly id: string; readonly delta: string }
  | {
      readonly type: "tool-call"
      readonly id: string
      readonly name: string
      readonly input: unknown
      /** The MCP server the call named (text tool calls); checked against the system prompt's map. */
      readonly server?: string
      /** The raw argument text as the model wrote it (before any repair). */
      readonly inputText?: string
      /** Set when the arguments were cut off or unreadable: the call must not run; the model gets this as its result. */
      readonly argumentsError?: string
      /** The argument text needed a benign repair (trailing comma, quotes, unquoted keys) to parse. */
      readonly argumentsRepaired?: boolean
    }
  | { readonly type: "finish"; readonly finish: FinishReason; readonly usage?: Usage }
  | { readonly type: "error"; readonly error: NormalizedError }
