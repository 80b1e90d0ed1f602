/**
 * Where the CLI keeps sessions: `--session-dir DIR` (SQLite in DIR/sessions.db) or `--store URL`
 * (postgres://…). Store failures become one line and an exit status: another writer, a corrupt
 * record or database file, or a bad target is the user's to fix (2); a disk that refuses a write, or
 * a lease lost while this process was paused, ends the run (1).
 */
import type { LoopguardConfig, SessionStoreError, SessionStoreShape } from "@loopguard/effect"
import { makeDurableStore, redactUrl } from "@loopguard/effect/store"
import { Effect, Option, Scope } from "effect"
import { RunFailed, UsageError } from "./errors.js"

export interface StoreFlags {
  readonly sessionDir: Option.Option<string>
  readonly store: Option.Option<string>
}

/** The one target the flags name, or null for none; both at once is a usage error. */
export const storeTargetOf = (flags: StoreFlags): Effect.Effect<string | null, UsageError> => {
  if (Option.isSome(flags.sessionDir) && Option.isSome(flags.store)) {
    return Effect.fail(new UsageError({ message: "--session-dir and --store name two stores; give one" }))
  }
  if (Option.isSome(flags.store)) {
    const url = flags.store.value
    // `postgres://` alone is whole when the libpq variables (PGHOST, PGUSER, …) say the rest.
    if (!/^postgres(ql)?:\/\//i.test(url)) {
      return Effect.fail(new UsageError({ message: `--store: expected a postgres://… URL, got ${redactUrl(url)} (for SQLite use --session-dir DIR)` }))
    }
    return Effect.succeed(url)
  }
  // An empty `--session-dir` (it would mean the current folder) is refused by the parser (text-flag.ts).
  return Option.isNone(flags.sessionDir) ? Effect.succeed(null) : Effect.succeed(flags.sessionDir.value)
}

/** SQLite's words for a file that is no sound database (SQLITE_CORRUPT, SQLITE_NOTADB), as Bun's and Node's drivers give them. */
const DAMAGED_CODE = /^SQLITE_(CORRUPT|NOTADB)\b/
const DAMAGED_WORDS = /database disk image is malformed|file is not a database/

/** Whether a driver failure says the database file itself is damaged: the store named is bad input, not a disk refusing. */
const damagedDatabase = (cause: unknown, depth = 0): boolean => {
  if (cause === null || typeof cause !== "object" || depth > 8) return false
  const c = cause as { code?: unknown; message?: unknown; errstr?: unknown; cause?: unknown }
  if (typeof c.code === "string" && DAMAGED_CODE.test(c.code)) return true
  if ([c.message, c.errstr].some((m) => typeof m === "string" && DAMAGED_WORDS.test(m))) return true
  return damagedDatabase(c.cause, depth + 1)
}

/** 1 when the disk or the database refused, or the lease was lost mid-run; 2 when the store named is at fault (another writer, a corrupt record or file). */
export const storeExitCode = (e: SessionStoreError): 1 | 2 =>
  (e.reason === "unavailable" && !damagedDatabase(e.cause)) || e.reason === "lease-lost" ? 1 : 2

export const storeFailure = (e: SessionStoreError): UsageError | RunFailed =>
  storeExitCode(e) === 1 ? new RunFailed({ message: e.message, exitCode: 1 }) : new UsageError({ message: e.message })

/** Opening a store that is not there or refuses us is a usage problem: exit 2. */
export const openCliStore = (target: string, config: LoopguardConfig): Effect.Effect<SessionStoreShape, UsageError, Scope.Scope> =>
  makeDurableStore(target, { leaseMs: config.store.leaseMs, busyTimeoutMs: config.store.busyTimeoutMs, timeoutMs: config.store.timeoutMs }).pipe(
    Effect.mapError((e) => new UsageError({ message: e.message }))
  )
