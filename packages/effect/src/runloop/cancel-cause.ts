/**
 * Why a run's abort signal fired, read from the signal's `reason`, so the report can tell a
 * person's Ctrl-C from a platform shutdown from a deadline the caller set. The reason is whatever
 * the caller passed to `AbortController.abort(reason)`:
 * - `"SIGINT"`: a person pressed Ctrl-C;
 * - `"SIGTERM"`: the process was asked to shut down (a container stop, a supervisor, `kill`);
 * - `"SIGPIPE"`: the reader of the output went away;
 * - a `TimeoutError` (what `AbortSignal.timeout(ms)` aborts with) or `{ deadline: true }`: the
 *   caller's deadline passed;
 * - anything else: the caller cancelled; an `Error`'s message or a string is quoted.
 */
export type CancelCause = "user" | "shutdown" | "output_closed" | "deadline" | "caller"

export interface CancelDescription {
  readonly cause: CancelCause
  readonly message: string
}

const MAX_QUOTED = 200

const quoted = (text: string): string => (text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text).replace(/[\u0000-\u001f\u007f]/g, " ")

const isTimeout = (reason: unknown): boolean =>
  (typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "TimeoutError") ||
  (typeof reason === "object" && reason !== null && (reason as { deadline?: unknown }).deadline === true)

/** The plain `abort()` reason: an `AbortError` with the runtime's own wording, which says nothing. */
const isBareAbort = (reason: unknown): boolean =>
  reason === undefined || (typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "AbortError")

export const describeCancel = (reason: unknown): CancelDescription => {
  if (reason === "SIGINT") return { cause: "user", message: "cancelled by the user (Ctrl-C)" }
  if (reason === "SIGTERM") return { cause: "shutdown", message: "stopped by a shutdown request (SIGTERM), not by the user" }
  if (reason === "SIGPIPE") return { cause: "output_closed", message: "stopped because the reader of the output went away (broken pipe)" }
  if (isTimeout(reason)) return { cause: "deadline", message: "stopped because the caller's deadline passed (its abort signal timed out)" }
  if (isBareAbort(reason)) return { cause: "caller", message: "cancelled by the caller (its abort signal)" }
  const text = reason instanceof Error ? reason.message : typeof reason === "string" ? reason : ""
  return { cause: "caller", message: text === "" ? "cancelled by the caller (its abort signal)" : `cancelled by the caller: ${quoted(text)}` }
}
