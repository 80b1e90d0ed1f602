/**
 * The durable SessionStores as Layers (and as scoped constructors for callers that build their
 * own Layer graph, like the CLI): SQLite in a folder, the embedded default, or Postgres by URL
 * for workers that share sessions. Both are the same store (sql-store.ts) over Effect's SqlClient.
 */
import { Effect, Layer, Redacted, Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { makeFolder } from "./make-folder.js"
import { closeSync, lstatSync, openSync } from "node:fs"
import { join, resolve } from "node:path"
import { makeRedactor } from "@loopguard/core/try-best"
import { boundedScope, detachedTimeout } from "./deadline.js"
import { libpqOptions, pgSecrets, redactUrl } from "./pg-target.js"
import { openSqlite } from "./sqlite-client.js"
import { redactingStore } from "./redacting-store.js"
import { makeSqlStore } from "./sql-store.js"
import { SessionStore, type SessionStoreShape } from "./SessionStore.js"
import { describeCause, SessionStoreError } from "./SessionStoreError.js"

export const DEFAULT_LEASE_MS = 30_000
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000
export const DEFAULT_STORE_TIMEOUT_MS = 30_000

export interface DurableStoreOptions {
  /** How long a writer's lease lasts without a heartbeat (config `store.leaseMs`). */
  readonly leaseMs?: number
  /** SQLite only: how long a write waits for another process's transaction (config `store.busyTimeoutMs`). */
  readonly busyTimeoutMs?: number
  /** The deadline of one store call (config `store.timeoutMs`): a store that stopped answering fails as `unavailable`. */
  readonly timeoutMs?: number
}

/** The database file inside a session folder. */
export const sqliteFile = (dir: string): string => join(resolve(dir), "sessions.db")

export { redactUrl } from "./pg-target.js"

const failOpen = (what: string, secrets: ReadonlyArray<string> = []) => (cause: unknown) =>
  new SessionStoreError({ reason: "unavailable", message: `could not open ${what}: ${makeRedactor(secrets)(redactUrl(describeCause(cause)))}`, cause })

// Loaded on first use: a runtime that keeps sessions in SQLite (or its own store) never loads the
// Postgres driver, and need not install it (an optional peer dependency).
const loadPgDriver = Effect.tryPromise({
  try: () => import("@effect/sql-pg"),
  catch: (cause) =>
    new SessionStoreError({ reason: "unavailable", message: "a postgres:// store needs the @effect/sql-pg package (npm i @effect/sql-pg@^4.0.5)", cause })
})

/** Whether a store target is a Postgres URL (anything else is a SQLite folder). */
export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target)

/**
 * The SqlClient behind a store target: a postgres:// URL, or a folder holding `sessions.db`.
 * Exported for tools and tests that inspect the database itself.
 */
export const openSqlClient = (
  target: string,
  options: DurableStoreOptions = {}
): Effect.Effect<{ readonly client: SqlClient.SqlClient; readonly shown: string; readonly readOnly: boolean }, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    if (isPostgresUrl(target)) {
      const shown = redactUrl(target)
      const secrets = pgSecrets(target, process.env)
      const { PgClient } = yield* loadPgDriver
      const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS
      // A server gone mid-run must not hold the end of the run: the pool's goodbye is bounded too.
      const clientScope = yield* boundedScope(timeoutMs)
      const client = yield* PgClient.make({ url: Redacted.make(target), ...libpqOptions(target, process.env), maxConnections: 4, connectTimeout: "10 seconds" }).pipe(
        Effect.provide(Reactivity.layer),
        Effect.mapError(failOpen(shown, secrets)),
        Scope.provide(clientScope)
      )
      // Fail here, at open, rather than at the first write: a wrong URL is a usage problem.
      yield* detachedTimeout(client`SELECT 1`.pipe(Effect.mapError(failOpen(shown, secrets))), timeoutMs, () =>
        Effect.fail(failOpen(shown, secrets)(`no answer within ${timeoutMs / 1000}s (store.timeoutMs)`))
      )
      return { client, shown, readOnly: false }
    }
    const file = sqliteFile(target)
    yield* Effect.try({ try: () => makeFolder(target, 0o700), catch: failOpen(`the session folder ${target}`) })
    yield* Effect.try({ try: () => ownDatabaseFile(file), catch: failOpen(file) })
    const { client, readOnly } = yield* openSqlite({ filename: file, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError(failOpen(file))
    )
    return { client, shown: file, readOnly }
  })

/**
 * The sessions file is the store's own, readable by its owner only (conversations, tool outputs):
 * made with mode 0600 before SQLite opens it (its -wal and -shm files take the same mode), and never
 * a symbolic link, which would put the sessions wherever the link points.
 */
const ownDatabaseFile = (file: string): void => {
  let link = false
  try {
    link = lstatSync(file).isSymbolicLink()
  } catch {
    closeSync(openSync(file, "a", 0o600))
    return
  }
  if (link) throw new Error("it is a symbolic link: loopguard keeps sessions only in a file of its own")
}

/** `--store URL` or `--session-dir DIR`: a postgres:// URL is Postgres, anything else a SQLite folder. */
export const makeDurableStore = (target: string, options: DurableStoreOptions = {}): Effect.Effect<SessionStoreShape, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const { client, shown, readOnly } = yield* openSqlClient(target, options)
    const store = yield* makeSqlStore({ leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, timeoutMs: options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, readOnly, shown, location: (id) => `${shown} (session ${id})` }).pipe(
      Effect.provideService(SqlClient.SqlClient, client)
    )
    // The database's own password never lands in its rows, whoever writes (a conversation through
    // the proxy may quote it as well as a run's prompt can).
    const own = pgSecrets(target, process.env)
    return own.length === 0 ? store : redactingStore(store, makeRedactor(own))
  })

/** The SQLite store in `dir` (`dir/sessions.db`), open for the scope. */
export const makeSqliteStore = (dir: string, options: DurableStoreOptions = {}) => makeDurableStore(resolve(dir), options)
/** The Postgres store at `url`, open for the scope. */
export const makePostgresStore = (url: string, options: DurableStoreOptions = {}) => makeDurableStore(url, options)

/** SessionStore as SQLite in `dir` (`dir/sessions.db`): the embedded default. */
export const layerSqliteStore = (dir: string, options: DurableStoreOptions = {}): Layer.Layer<SessionStore, SessionStoreError> =>
  Layer.effect(SessionStore, makeSqliteStore(dir, options))

/** SessionStore as Postgres at `url`: for workers that share sessions. */
export const layerPostgresStore = (url: string, options: DurableStoreOptions = {}): Layer.Layer<SessionStore, SessionStoreError> =>
  Layer.effect(SessionStore, makePostgresStore(url, options))
