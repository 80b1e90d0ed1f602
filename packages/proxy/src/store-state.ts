/**
 * What the proxy keeps in the session store's database (SQLite in a folder, or Postgres for
 * replicas) beside the sessions: the fleet-wide backoff, one row per upstream with the time before
 * which nobody calls it (every replica reads it before each attempt, so one upstream's Retry-After
 * holds them all), and one row per request with what the proxy did (action, incidents, outcome).
 */
import type { LoopguardConfig } from "@loopguard/effect/config"
import { makeRedactor, redactDeep } from "@loopguard/core/try-best"
import { describeCause, openSqlClient, pgSecrets, SessionStoreError, statementRuns } from "@loopguard/effect/store"
import { Effect, Schema, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import type { BackoffBoard } from "./backoff.js"
import type { RequestRecord } from "./handler.js"

const Num = Schema.Union([Schema.Number, Schema.NumberFromString, Schema.BigInt])
const decodeUntil = Schema.decodeUnknownResult(Schema.Struct({ until_ms: Num }))

/** How long a request waits for the board's row before it goes on without it. */
export const BOARD_READ_MS = 1_000
/** How long a board that did not answer in time is left alone. */
export const BOARD_RESTING_MS = 5_000

/** Null once `ms` have passed (the timer does not keep the process alive). */
const answerWithin = (ms: number): Promise<null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms)
    ;(timer as { unref?: () => void }).unref?.()
  })

/**
 * The board's reads as requests ask for them. Requests that arrive while a read of the same
 * upstream's row is under way share its answer (a fleet's burst is one read, not one each); a hold
 * written meanwhile is the next read's. A database that stopped answering (frozen, failing over)
 * must not hold every request for its connect timeout: past `readMs` the board holds nobody back,
 * and is not asked again for `restMs`, so a frozen database costs a request at most one such wait.
 */
export const sharedReads = (read: (upstream: string) => Promise<number>, readMs = BOARD_READ_MS, restMs = BOARD_RESTING_MS) => {
  const reading = new Map<string, Promise<number>>()
  let restingUntil = 0
  return (upstream: string): Promise<number> => {
    if (Date.now() < restingUntil) return Promise.resolve(0)
    let answer = reading.get(upstream)
    if (answer === undefined) {
      const asked = read(upstream).finally(() => reading.delete(upstream))
      answer = Promise.race([asked, answerWithin(readMs)]).then((ms) => {
        if (ms !== null) return ms
        restingUntil = Date.now() + restMs
        return 0
      })
      reading.set(upstream, answer)
    }
    return answer
  }
}

/** The board over an open SqlClient; the table is created if it is not there. */
export const sqlBackoff = (sql: SqlClient.SqlClient): Effect.Effect<BackoffBoard, unknown> =>
  Effect.gen(function* () {
    yield* sql`CREATE TABLE IF NOT EXISTS loopguard_proxy_backoff (upstream TEXT PRIMARY KEY, until_ms BIGINT NOT NULL)`
    // A board that cannot be read holds nobody back: the retry policy still applies per request.
    const read = (upstream: string) =>
      Effect.runPromise(
        sql`SELECT until_ms FROM loopguard_proxy_backoff WHERE upstream = ${upstream}`.pipe(
          Effect.map((rows) => {
            const row = rows.length === 0 ? undefined : decodeUntil(rows[0])
            return row === undefined || row._tag === "Failure" ? 0 : Number(row.success.until_ms)
          }),
          Effect.orElseSucceed(() => 0),
          // A connection lost mid-read dies in the driver: still no board, not a failed request.
          Effect.catchDefect(() => Effect.succeed(0))
        )
      )
    const until = sharedReads(read)
    const hold = (upstream: string, untilMs: number) =>
      Effect.runPromise(
        sql`INSERT INTO loopguard_proxy_backoff (upstream, until_ms) VALUES (${upstream}, ${Math.round(untilMs)})
            ON CONFLICT (upstream) DO UPDATE SET until_ms = excluded.until_ms
            WHERE loopguard_proxy_backoff.until_ms < excluded.until_ms`.pipe(Effect.asVoid, Effect.ignore, Effect.catchDefect(() => Effect.void))
      )
    return { until, hold } satisfies BackoffBoard
  })

/**
 * Group commit: what is queued while a write runs goes together in the next write, one transaction
 * (one sync to disk) for all of it. Idle, an item is written at once; busy (a fleet's requests ending
 * many a second), the writes stay few and the reads that share the connection (the backoff board,
 * before every request) do not queue behind one commit per request.
 */
export const groupCommit = <A>(write: (batch: ReadonlyArray<A>) => Promise<string | null>): GroupCommit<A> => {
  let queue: Array<{ readonly item: A; readonly done: (failed: string | null) => void }> = []
  let draining: Promise<void> | null = null
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue
      queue = []
      const failed = await write(batch.map((b) => b.item)).catch((e: unknown) => String(e))
      for (const b of batch) b.done(failed)
    }
    draining = null
  }
  return {
    add: (item) =>
      new Promise((done) => {
        queue.push({ item, done })
        draining ??= drain()
      }),
    idle: async () => {
      while (draining !== null) await draining
    }
  }
}

export interface GroupCommit<A> {
  /** Queues `item`; resolves with null once it is written, or with why its write failed. */
  readonly add: (item: A) => Promise<string | null>
  /** Resolves when everything queued so far is written (or failed). */
  readonly idle: () => Promise<void>
}

/** A request's record as a row of `loopguard_proxy_requests`. */
const rowOf = ({ at, record }: { readonly at: number; readonly record: RequestRecord }) => ({ session_id: record.session, at, record: JSON.stringify(record) })

const createRequestLog = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE IF NOT EXISTS loopguard_proxy_requests (session_id TEXT NOT NULL, at BIGINT NOT NULL, record TEXT NOT NULL)`

/**
 * Writes each request's record (what the proxy did) to `loopguard_proxy_requests`, in group commits;
 * a failed write is reported, never thrown. When its scope closes, what is queued is written first
 * (the connection, opened before, closes after).
 */
export const sqlRequestLog = (sql: SqlClient.SqlClient): Effect.Effect<(record: RequestRecord) => Promise<string | null>, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    yield* createRequestLog(sql)
    const commit = groupCommit((batch: ReadonlyArray<{ readonly at: number; readonly record: RequestRecord }>) =>
      Effect.runPromise(
        sql
          .withTransaction(
            // One statement per 200 rows (600 values: within every SQLite's limit on a statement's parameters).
            Effect.forEach(statementRuns(batch), ([first, ...rest]) => sql`INSERT INTO loopguard_proxy_requests ${sql.insert([rowOf(first!), ...rest.map(rowOf)])}`, { discard: true })
          )
          .pipe(
            Effect.as(null),
            Effect.catch((e) => Effect.succeed(`could not record the request: ${e.message}`)),
            Effect.catchDefect((defect) => Effect.succeed(`could not record the request: ${describeCause(defect)}`))
          )
      )
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => commit.idle()))
    return (record: RequestRecord) => commit.add({ at: Date.now(), record })
  })

/** One stored request of a proxied conversation: when it ended and what the proxy did with it. */
export interface StoredRequest {
  readonly at: number
  readonly record: RequestRecord
}

const StoredRow = Schema.Struct({ at: Num, record: Schema.String })
const decodeRow = Schema.decodeUnknownResult(StoredRow)
const RecordShape = Schema.Struct({ session: Schema.String, action: Schema.String, outcome: Schema.String, status: Schema.Number, ms: Schema.Number })
const decodeRecordShape = Schema.decodeUnknownResult(RecordShape)

/** A stored row as a request, or null when it is not one (a newer or damaged row is skipped, never fatal). */
const storedRequestOf = (raw: unknown): StoredRequest | null => {
  const row = decodeRow(raw)
  if (row._tag === "Failure") return null
  let parsed: unknown
  try {
    parsed = JSON.parse(row.success.record)
  } catch {
    return null
  }
  if (decodeRecordShape(parsed)._tag === "Failure") return null
  const record = parsed as RequestRecord
  return { at: Number(row.success.at), record: { ...record, incidents: Array.isArray(record.incidents) ? record.incidents : [] } }
}

/**
 * The proxy's records of one session's requests, oldest first; none when the store never had a
 * proxy write to it (no table).
 */
export const readRequestLog = (sql: SqlClient.SqlClient, session: string): Effect.Effect<ReadonlyArray<StoredRequest>> =>
  sql`SELECT at, record FROM loopguard_proxy_requests WHERE session_id = ${session} ORDER BY at`.pipe(
    Effect.map((rows) => rows.flatMap((raw) => storedRequestOf(raw) ?? [])),
    Effect.orElseSucceed((): ReadonlyArray<StoredRequest> => [])
  )

/** `readRequestLog` over the store named by `--session-dir` / `--store`, opened for this read. */
export const requestLogOf = (target: string, config: LoopguardConfig, session: string): Effect.Effect<ReadonlyArray<StoredRequest>, SessionStoreError> =>
  Effect.scoped(Effect.flatMap(openSqlClient(target, { busyTimeoutMs: config.store.busyTimeoutMs }), ({ client }) => readRequestLog(client, session)))

/**
 * Deletes the request records of the named sessions (`sessions delete` / `prune`, after the
 * sessions themselves) from the store named by `--session-dir` / `--store`.
 */
export const removeRequestLogs = (target: string, config: LoopguardConfig, sessions: ReadonlyArray<string>): Effect.Effect<void, SessionStoreError> =>
  sessions.length === 0
    ? Effect.void
    : Effect.scoped(
        Effect.flatMap(openSqlClient(target, { busyTimeoutMs: config.store.busyTimeoutMs }), ({ client: sql }) =>
          sql
            .withTransaction(
              Effect.andThen(
                createRequestLog(sql),
                Effect.forEach(statementRuns(sessions), (ids) => sql`DELETE FROM loopguard_proxy_requests WHERE ${sql.in("session_id", ids)}`, { discard: true })
              )
            )
            .pipe(Effect.mapError((e) => new SessionStoreError({ reason: "unavailable", message: `could not delete the proxy's request records: ${e.message}` })))
        )
      )

export interface SharedState {
  readonly board: BackoffBoard
  /** Resolves with an error message when the record could not be written, else null. */
  readonly logRequest: (record: RequestRecord) => Promise<string | null>
}

/**
 * The board and the request log in the store named by `--session-dir` / `--store`, open for the
 * scope, each on a connection of its own: the board is read before every request, and a read must
 * not wait behind the log's commits.
 */
export const sharedState = (target: string, config: LoopguardConfig): Effect.Effect<SharedState, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const options = { busyTimeoutMs: config.store.busyTimeoutMs }
    const board = yield* sqlBackoff((yield* openSqlClient(target, options)).client).pipe(Effect.orDie)
    const log = yield* sqlRequestLog((yield* openSqlClient(target, options)).client).pipe(Effect.orDie)
    // The database's password stays out of its rows, as the session store keeps it out of its own.
    const redact = makeRedactor(pgSecrets(target, process.env))
    return { board, logRequest: (record: RequestRecord) => log(redactDeep(record, redact)) }
  })
