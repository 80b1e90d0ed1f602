/**
 * Where the CLI keeps sessions: `--session-dir DIR` (SQLite in DIR/sessions.db) or `--store URL`
 * (postgres://…). Store failures become one line and an exit status: another writer, a corrupt
 * record or a bad target is the user's to fix (2); a disk that refuses a write, or a lease lost
 * while this process was paused, ends the run (1).
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
  return Option.isNone(flags.sessionDir) ? Effect.succeed(null) : checkedSessionDir(flags.sessionDir.value)
}

/** `--session-dir`'s folder; empty is refused (`--session-dir=` of a variable that expanded to nothing would mean the current folder). */
const checkedSessionDir = (dir: string): Effect.Effect<string, UsageError> =>
  dir.trim() === "" ? Effect.fail(new UsageError({ message: "--session-dir: empty; name the folder (for the current one: --session-dir .)" })) : Effect.succeed(dir)

export const storeFailure = (e: SessionStoreError): UsageError | RunFailed =>
  e.reason === "unavailable" || e.reason === "lease-lost" ? new RunFailed({ message: e.message, exitCode: 1 }) : new UsageError({ message: e.message })

/** Opening a store that is not there or refuses us is a usage problem: exit 2. */
export const openCliStore = (target: string, config: LoopguardConfig): Effect.Effect<SessionStoreShape, UsageError, Scope.Scope> =>
  makeDurableStore(target, { leaseMs: config.store.leaseMs, busyTimeoutMs: config.store.busyTimeoutMs, timeoutMs: config.store.timeoutMs }).pipe(
    Effect.mapError((e) => new UsageError({ message: e.message }))
  )
