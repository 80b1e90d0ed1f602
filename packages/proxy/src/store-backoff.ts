/**
 * The fleet-wide backoff kept in the session store's database (SQLite in a folder, or Postgres
 * for replicas): one row per upstream with the time before which nobody calls it. Every replica
 * reads it before each attempt, so one upstream's Retry-After holds them all.
 */
import type { LoopguardConfig } from "@loopguard/effect/config"
import { openSqlClient, type SessionStoreError } from "@loopguard/effect/store"
import { Effect, Schema, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import type { BackoffBoard } from "./backoff.js"

const Num = Schema.Union([Schema.Number, Schema.NumberFromString, Schema.BigInt])
const decodeUntil = Schema.decodeUnknownResult(Schema.Struct({ until_ms: Num }))

/** The board over an open SqlClient; the table is created if it is not there. */
export const sqlBackoff = (sql: SqlClient.SqlClient): Effect.Effect<BackoffBoard, unknown> =>
  Effect.gen(function* () {
    yield* sql`CREATE TABLE IF NOT EXISTS loopguard_proxy_backoff (upstream TEXT PRIMARY KEY, until_ms BIGINT NOT NULL)`
    // A board that cannot be read holds nobody back: the retry policy still applies per request.
    const until = (upstream: string) =>
      Effect.runPromise(
        sql`SELECT until_ms FROM loopguard_proxy_backoff WHERE upstream = ${upstream}`.pipe(
          Effect.map((rows) => {
            const row = rows.length === 0 ? undefined : decodeUntil(rows[0])
            return row === undefined || row._tag === "Failure" ? 0 : Number(row.success.until_ms)
          }),
          Effect.orElseSucceed(() => 0)
        )
      )
    const hold = (upstream: string, untilMs: number) =>
      Effect.runPromise(
        sql`INSERT INTO loopguard_proxy_backoff (upstream, until_ms) VALUES (${upstream}, ${Math.round(untilMs)})
            ON CONFLICT (upstream) DO UPDATE SET until_ms = excluded.until_ms
            WHERE loopguard_proxy_backoff.until_ms < excluded.until_ms`.pipe(Effect.asVoid, Effect.ignore)
      )
    return { until, hold } satisfies BackoffBoard
  })

/** The board in the store named by `--session-dir` / `--store`, open for the scope. */
export const sharedBackoff = (target: string, config: LoopguardConfig): Effect.Effect<BackoffBoard, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const { client } = yield* openSqlClient(target, { busyTimeoutMs: config.store.busyTimeoutMs })
    return yield* sqlBackoff(client).pipe(Effect.orDie)
  })
