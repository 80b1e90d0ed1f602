/**
 * Two failures handled outside the budgets (docs/retry.md): OpenAI's `server_is_overloaded`, which the
 * main session retries a few times at once and silently, and a backend that rejects a request
 * ending with an assistant message, which gets one retry without that message.
 */
import type { NormalizedError } from "../model/stream.js"
import { containsAny, OVERLOADED_MARKERS, PREFILL_REJECTION_MARKERS } from "./patterns.js"

/** Silent immediate retries of `server_is_overloaded` in the main session. */
export const DEFAULT_OVERLOADED_IMMEDIATE_RETRIES = 3

/** OpenAI's `server_is_overloaded` (the main session retries it silently, immediately). */
export const isOverloaded = (error: NormalizedError): boolean =>
  containsAny([error.code ?? "", error.message, error.body ?? ""], OVERLOADED_MARKERS)

/** The backend refused a request that ends with an assistant message (prefill). */
export const isPrefillRejection = (error: NormalizedError): boolean =>
  containsAny([error.message, error.body ?? ""], PREFILL_REJECTION_MARKERS)
