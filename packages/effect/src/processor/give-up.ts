/**
 * What a step records when the retry schedule gives up. Pure.
 */
import type { NormalizedError } from "@loopguard/core/model"
import type { RetryStopReason } from "@loopguard/core/retry"

/**
 * The error a step records when it gives up because the budget or the deadline ran out. The
 * provider's own message ("upstream crashed") does not say that it was an HTTP 500 nor that it
 * was retried, and it is what the run report shows; so both are appended. Every other field is
 * kept, and other stops (terminal, unsafe replay) record the error unchanged.
 */
export const giveUpError = (
  error: NormalizedError,
  reason: RetryStopReason,
  retriesMade: number,
  server: { readonly delayMs?: number | undefined; readonly budget: string } | null = null
): NormalizedError => {
  if (reason !== "budget-exhausted" && reason !== "deadline") return error
  const status = error.status !== undefined && (error.status < 200 || error.status >= 300) ? `HTTP ${error.status}; ` : ""
  const retries = `${retriesMade} ${retriesMade === 1 ? "retry" : "retries"}`
  // The server's own wait, when it is what ran past the deadline: the person learns what it asked for.
  const asked = reason === "deadline" && server?.delayMs !== undefined ? `the server asked to wait ${Math.ceil(server.delayMs / 1000)} s, past the retry deadline (retry.${server.budget}.deadlineMs); ` : ""
  return { ...error, message: `${error.message} (${status}${asked}gave up after ${retries}: ${reason})` }
}
