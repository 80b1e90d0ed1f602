/**
 * The store's schema, versioned. `loopguard_schema_version` holds one row: the number of
 * migrations applied. Each migration is a list of statements run in one transaction with the
 * version bump, so a database is always at a whole version; Postgres takes an advisory lock so
 * two workers starting at once do not both migrate. A database newer than this code is refused.
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { SessionStoreError } from "./SessionStoreError.js"

/** Appended to, never edited: a released migration is what existing databases already ran. */
export const MIGRATIONS: ReadonlyArray<ReadonlyArray<string>> = [
  [
    `CREATE TABLE loopguard_sessions (
      id TEXT PRIMARY KEY,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      owner TEXT,
      owner_host TEXT,
      owner_pid INTEGER,
      lease_until BIGINT
    )`,
    `CREATE TABLE loopguard_messages (
      session_id TEXT NOT NULL REFERENCES loopguard_sessions (id),
      seq INTEGER NOT NULL,
      id TEXT NOT NULL,
      role TEXT NOT NULL,
      body TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (session_id, seq),
      UNIQUE (session_id, id)
    )`
  ],
  // The lease's fencing token, bumped at every acquisition (lease.ts).
  [`ALTER TABLE loopguard_sessions ADD COLUMN lease_token BIGINT NOT NULL DEFAULT 0`]
]

export const SCHEMA_VERSION = MIGRATIONS.length

export const migrate: Effect.Effect<void, SessionStoreError | SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql.onDialectOrElse({
        pg: () => sql`SELECT pg_advisory_xact_lock(7041993)`,
        orElse: () => Effect.void
      })
      yield* sql`CREATE TABLE IF NOT EXISTS loopguard_schema_version (version INTEGER NOT NULL)`
      const rows = yield* sql<{ version: number | string }>`SELECT version FROM loopguard_schema_version`
      const current = rows.length === 0 ? 0 : Number(rows[0]!.version)
      if (current > SCHEMA_VERSION) {
        return yield* new SessionStoreError({
          reason: "invalid",
          message: `the session database is at schema version ${current}, newer than this loopguard understands (${SCHEMA_VERSION}); upgrade loopguard`
        })
      }
      for (let v = current; v < SCHEMA_VERSION; v++) {
        for (const statement of MIGRATIONS[v]!) yield* sql.unsafe(statement)
      }
      if (rows.length === 0) yield* sql`INSERT INTO loopguard_schema_version (version) VALUES (${SCHEMA_VERSION})`
      else if (current !== SCHEMA_VERSION) yield* sql`UPDATE loopguard_schema_version SET version = ${SCHEMA_VERSION}`
    })
  )
})

/** For a database that can only be read: it must already be at this code's version. */
export const checkSchema: Effect.Effect<void, SessionStoreError | SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ version: number | string }>`SELECT version FROM loopguard_schema_version`
  const current = rows.length === 0 ? 0 : Number(rows[0]!.version)
  if (current !== SCHEMA_VERSION) {
    return yield* new SessionStoreError({
      reason: "invalid",
      message: `the session database is read-only and at schema version ${current}, not ${SCHEMA_VERSION}; open it once where it can be written to upgrade it`
    })
  }
})
