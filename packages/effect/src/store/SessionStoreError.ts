/**
 * The one error a SessionStore fails with. `reason` says what a caller can do about it: a
 * `locked` session belongs to another writer (the CLI exits 2), `corrupt` names the record that
 * cannot be read, `unavailable` is the disk or the database refusing (full, read-only, gone).
 */
import { Data } from "effect"

export type SessionStoreFailure = "locked" | "lease-lost" | "corrupt" | "unavailable" | "not-found" | "invalid"

/** The one error a SessionStore fails with; `reason` says what went wrong, `message` says it in one line. */
export class SessionStoreError extends Data.TaggedError("SessionStoreError")<{
  readonly reason: SessionStoreFailure
  readonly sessionId?: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** The first line of a driver error, without a stack: what a person reads after "loopguard:". */
export const describeCause = (cause: unknown): string => {
  if (cause !== null && typeof cause === "object") {
    const c = cause as { message?: unknown; cause?: unknown }
    const inner = c.cause !== undefined && c.cause !== cause ? describeCause(c.cause) : ""
    const own = typeof c.message === "string" ? c.message.split("\n")[0]! : ""
    if (inner !== "" && inner.startsWith(own)) return inner
    if (inner !== "" && !own.includes(inner)) return own === "" ? inner : `${own}: ${inner}`
    if (own !== "") return own
  }
  return String(cause).split("\n")[0]!
}
