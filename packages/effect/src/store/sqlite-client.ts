/**
 * Effect's SqlClient over the SQLite built into the runtime: `bun:sqlite` under Bun,
 * `node:sqlite` under Node ≥ 22.13. Both are loaded with a dynamic import chosen at run time, so a
 * bundle built for Node never asks for `bun:sqlite`, and nothing needs a native build step
 * (the published `@effect/sql-sqlite-*` drivers are beta builds and the Node one compiles
 * better-sqlite3; see docs/store.md). One connection per client, shared through a semaphore.
 */
import { Effect, Layer, Scope, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError as SqlErrors, Statement, type SqlConnection } from "effect/sql"

type Connection = SqlConnection.Connection
type SqlError = SqlErrors.SqlError

/** The part of `bun:sqlite`'s Database and `node:sqlite`'s DatabaseSync used here. */
interface NativeStatement {
  all(...params: ReadonlyArray<unknown>): ReadonlyArray<Record<string, unknown>>
  /** bun:sqlite: a statement left unfinalized keeps the file open after close(). */
  finalize?(): void
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement
  exec(sql: string): void
  close(): void
}

export interface SqliteClientOptions {
  readonly filename: string
  /** How long a write waits for another process's lock before failing (SQLite busy_timeout). */
  readonly busyTimeoutMs: number
  readonly readonly?: boolean
}

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"

const openNative = async (options: SqliteClientOptions): Promise<NativeDatabase> => {
  if (isBun) {
    const { Database } = await importBunSqlite()
    return new Database(options.filename, options.readonly === true ? { readonly: true } : { create: true })
  }
  const mod = await importNodeSqlite()
  return new mod.DatabaseSync(options.filename, options.readonly === true ? { readOnly: true } : {})
}

/**
 * An existing database on a read-only medium: WAL mode cannot even open it for reading (it must
 * create the -shm file), so it is opened as immutable, which SQLite allows only through a URI.
 */
const openImmutable = async (filename: string): Promise<NativeDatabase> => {
  const uri = `file:${filename.split("/").map(encodeURIComponent).join("/")}?immutable=1`
  if (isBun) {
    const { Database } = await importBunSqlite()
    const SQLITE_OPEN_READONLY = 0x01
    const SQLITE_OPEN_URI = 0x40
    return new Database(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
  }
  const mod = await importNodeSqlite()
  return new mod.DatabaseSync(uri, { readOnly: true })
}

/** Writable when it can be; else, for a file that exists, read-only (immutable). */
const openWithFallback = async (options: SqliteClientOptions): Promise<{ db: NativeDatabase; readOnly: boolean }> => {
  if (options.readonly === true) return { db: await openImmutable(options.filename), readOnly: true }
  let db: NativeDatabase | undefined
  try {
    db = await openNative(options)
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`)
    db.exec("PRAGMA journal_mode = WAL")
    db.exec("PRAGMA synchronous = FULL")
    return { db, readOnly: false }
  } catch (cause) {
    db?.close()
    const { existsSync } = await import("node:fs")
    // Only a medium that refuses writing: a busy or damaged database must fail, not be read stale.
    if (!existsSync(options.filename) || !/readonly|read-only|unable to open/i.test(String((cause as Error)?.message ?? cause))) throw cause
    try {
      return { db: await openImmutable(options.filename), readOnly: true }
    } catch {
      throw cause
    }
  }
}

/** `bun:sqlite` through a string specifier: no Bun types needed to build, and Node bundles never resolve it. */
const importBunSqlite = async (): Promise<{ Database: new (path: string, options?: object | number) => NativeDatabase }> => {
  const specifier = "bun:sqlite"
  return (await import(specifier)) as { Database: new (path: string, options?: object | number) => NativeDatabase }
}

/** `node:sqlite`, without its one-time "experimental" warning on stderr; a clear error where it is missing. */
const importNodeSqlite = async (): Promise<{ DatabaseSync: new (path: string, options?: object) => NativeDatabase }> => {
  // A string specifier keeps bundlers from resolving it for runtimes that lack it.
  const specifier = "node:sqlite"
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
    if (String(warning instanceof Error ? warning.message : warning).includes("SQLite is an experimental feature")) return
    return (emitWarning as (...a: Array<unknown>) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    return (await import(specifier)) as { DatabaseSync: new (path: string, options?: object) => NativeDatabase }
  } catch (cause) {
    throw new Error(`the SQLite store needs Bun or Node ≥ 22.13 (node:sqlite); this is Node ${process.versions.node}`, { cause })
  } finally {
    process.emitWarning = emitWarning
  }
}

const sqlError = (cause: unknown, operation: string) =>
  new SqlErrors.SqlError({ reason: SqlErrors.classifySqliteError(cause, { message: `SQLite ${operation} failed`, operation }) })

const makeConnection = (db: NativeDatabase, cache: Map<string, NativeStatement>): Connection => {
  const prepared = (sql: string) => {
    let s = cache.get(sql)
    if (s === undefined) cache.set(sql, (s = db.prepare(sql)))
    return s
  }
  const once = (sql: string, params: ReadonlyArray<unknown>) => {
    const statement = db.prepare(sql)
    try {
      return statement.all(...params.map(bindable))
    } finally {
      statement.finalize?.()
    }
  }
  const run = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.try({
      try: () => (prepare ? prepared(sql).all(...params.map(bindable)) : once(sql, params)),
      catch: (cause) => sqlError(cause, "execute")
    })
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

/** SQLite binds numbers, strings, bigints, bytes and null; booleans become 0/1. */
const bindable = (v: unknown): unknown => (typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v)

export interface OpenedSqlite {
  readonly client: SqlClient.SqlClient
  /** The file could only be opened for reading (a read-only medium): every write fails. */
  readonly readOnly: boolean
}

/** Opens the file with WAL + busy timeout + full sync (read-only if that is all the medium allows); closed with the scope. */
export const openSqlite = (options: SqliteClientOptions): Effect.Effect<OpenedSqlite, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const cache = new Map<string, NativeStatement>()
    const { db, readOnly } = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => openWithFallback(options), catch: (cause) => sqlError(cause, "open") }),
      ({ db: d }) =>
        Effect.sync(() => {
          for (const statement of cache.values()) statement.finalize?.()
          d.close()
        })
    )
    const connection = makeConnection(db, cache)
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
