import type { NormalizedError } from "@loopguard/core/model"
import type { RetryDecision } from "@loopguard/core/retry"
import { Data } from "effect"

/**
 * A retryable failure that ran out of budget (count or deadline). Terminal errors and unsafe
 * replays are not wrapped: the caller gets its own error back unchanged.
 */
export class RetryExhausted<E = unknown> extends Data.TaggedError("RetryExhausted")<{
  readonly reason: "budget-exhausted" | "deadline"
  /** Retries made before giving up. */
  readonly attempts: number
  readonly decision: RetryDecision
  readonly error: NormalizedError
  /** The last failure exactly as the effect produced it. */
  readonly lastError: E
}> {
  override get message() {
    return `retry gave up (${this.reason}) after ${this.attempts} retries: ${this.error.message}`
  }
}

/** Invalid `retry` / `provider.<id>.retry` config; each entry names its path. */
export class RetryConfigError extends Data.TaggedError("RetryConfigError")<{ readonly errors: ReadonlyArray<string> }> {
  override get message() {
    return this.errors.join("\n")
  }
}
