/**
 * Effect's SqlClient over the SQLite built into the runtime: `bun:sqlite` under Bun,
 * `node:sqlite` under Node ≥ 22.13, so nothing needs a native build step (the published
 * `@effect/sql-sqlite-*` drivers are beta builds and the Node one compiles better-sqlite3; see
 * docs/store.md). The connection lives on a thread of its own (sqlite-thread.ts): statements, commits
 * with their sync to disk and lock waits never hold the caller's event loop. One connection per
 * client, shared through a semaphore.
 */
import { Effect, Layer, Scope, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError as SqlErrors, Statement, type SqlConnection } from "effect/sql"
import { SqliteThread } from "./sqlite-thread.js"

type Connection = SqlConnection.Connection
type SqlError = SqlErrors.SqlError

export interface SqliteClientOptions {
  readonly filename: string
  /** How long a write waits for another process's lock before failing (SQLite busy_timeout). */
  readonly busyTimeoutMs: number
  readonly readonly?: boolean
}

const sqlError = (cause: unknown, operation: string) =>
  new SqlErrors.SqlError({ reason: SqlErrors.classifySqliteError(cause, { message: `SQLite ${operation} failed`, operation }) })

const makeConnection = (thread: SqliteThread): Connection => {
  const run = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.tryPromise({ try: () => thread.run(sql, params, prepare), catch: (cause) => sqlError(cause, "execute") })
  const execute = (sql: string, params: ReadonlyArray<unknown>, transform?: <A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) =>
    Effect.map(run(sql, params, true), (rows) => (transform ? transform(rows) : rows))
  return {
    execute,
    executeRaw: (sql, params) => run(sql, params, true),
    executeStream: (sql, params, transform) => Stream.fromIterableEffect(execute(sql, params, transform)),
    executeValues: (sql, params) => Effect.map(run(sql, params, true), (rows) => rows.map((r) => Object.values(r))),
    executeValuesUnprepared: (sql, params) => Effect.map(run(sql, params, false), (rows) => rows.map((r) => Object.values(r))),
    executeUnprepared: (sql, params, transform) =>
      Effect.map(run(sql, params, false), (rows) => (transform ? transform(rows) : rows))
  }
}

export interface OpenedSqlite {
  readonly client: SqlClient.SqlClient
  /** The file could only be opened for reading (a read-only medium): every write fails. */
  readonly readOnly: boolean
}

/** Opens the file with WAL + busy timeout + full sync (read-only if that is all the medium allows); closed with the scope. */
export const openSqlite = (options: SqliteClientOptions): Effect.Effect<OpenedSqlite, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const { thread, readOnly } = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const thread = new SqliteThread()
          try {
            const { readOnly } = await thread.open({ filename: options.filename, busyTimeoutMs: options.busyTimeoutMs, readonly: options.readonly === true })
            return { thread, readOnly }
          } catch (cause) {
            await thread.close().catch(() => {})
            throw cause
          }
        },
        catch: (cause) => sqlError(cause, "open")
      }),
      ({ thread: t }) => Effect.promise(() => t.close().catch(() => {}))
    )
    const connection = makeConnection(thread)
    const acquirers = SqlClient.makeSqliteAcquirers({ connection: Effect.succeed(connection), semaphore: yield* Semaphore.make(1) })
    const client = yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "loopguard-sqlite",
      spanAttributes: [["db.system.name", "sqlite"]],
      // IMMEDIATE takes the write lock at BEGIN, so two writers queue on busy_timeout instead of
      // failing half-way through a transaction.
      beginTransaction: "BEGIN IMMEDIATE"
    })
    return { client, readOnly }
  })

/** Effect's SqlClient over the runtime's built-in SQLite, open for the scope. */
export const makeSqliteClient = (options: SqliteClientOptions): Effect.Effect<SqlClient.SqlClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.map(openSqlite(options), (o) => o.client)

/** Effect's SqlClient over the runtime's built-in SQLite, as a Layer. */
export const layerSqliteClient = (options: SqliteClientOptions): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.effect(SqlClient.SqlClient, makeSqliteClient(options)).pipe(Layer.provide(Reactivity.layer))
