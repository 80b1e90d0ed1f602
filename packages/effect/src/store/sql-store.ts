/**
 * The SessionStore over Effect's SqlClient: the same code for SQLite (embedded default) and
 * Postgres (workers sharing sessions). Each message is one row (JSON body, decoded with Schema on
 * read); every write is one transaction that first claims the session's lease (lease.ts), so a
 * failed write (disk full, read-only, lease lost) rolls back whole and the session stays loadable.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { Duration, Effect, Schedule, Schema, Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { claimLease, holderLabel, makeOwner, releaseLease, renewLease } from "./lease.js"
import { parseMessageBody } from "./message-schema.js"
import { checkSchema, migrate } from "./migrations.js"
import type { SessionStoreShape, SessionSummary } from "./SessionStore.js"
import { SessionJournal } from "./session-journal.js"
import { describeCause, SessionStoreError } from "./SessionStoreError.js"

export interface SqlStoreOptions {
  /** What the run report prints as "saved at" for a session. */
  readonly location: (sessionId: string) => string
  readonly leaseMs: number
  /** Opened from a read-only medium: the schema is checked, not migrated; writes fail as `unavailable`. */
  readonly readOnly?: boolean
}

/** SQLite gives numbers; Postgres gives BIGINT as bigint and COUNT(*) as bigint or string. */
const Num = Schema.Union([Schema.Number, Schema.NumberFromString, Schema.BigInt])
const MessageRow = Schema.Struct({ seq: Num, id: Schema.String, body: Schema.String })
const SummaryRow = Schema.Struct({
  id: Schema.String,
  updated_at: Num,
  owner_host: Schema.NullOr(Schema.String),
  owner_pid: Schema.NullOr(Num),
  lease_until: Schema.NullOr(Num),
  messages: Num,
  steps: Num
})
const decodeRow = Schema.decodeUnknownResult(MessageRow)
const decodeSummary = Schema.decodeUnknownResult(SummaryRow)

/** A driver failure as the store's error: what failed, for which session, and the driver's words. */
const unavailable = (doing: string, sessionId?: string) => (e: SqlError.SqlError) =>
  new SessionStoreError({
    reason: "unavailable",
    ...(sessionId !== undefined ? { sessionId } : {}),
    message: `${sessionId !== undefined ? `session ${sessionId}: ` : ""}could not ${doing}: ${describeCause(e)}`,
    cause: e
  })

const corrupt = (sessionId: string, record: string, problem: string) =>
  new SessionStoreError({ reason: "corrupt", sessionId, message: `session ${sessionId}, record ${record}: ${problem}; the session cannot be loaded` })

export const makeSqlStore = (options: SqlStoreOptions): Effect.Effect<SessionStoreShape, SessionStoreError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* (options.readOnly === true ? checkSchema : migrate).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("prepare the session database")(e))))
    const owner = makeOwner()
    const held = new Set<string>()
    /**
     * The sessions this process holds the write lease of, mirrored in memory: nobody else may
     * write them meanwhile, so `changes` answers from the mirror and a step's reads do not grow
     * with the session. A committed write is applied to the mirror as the row reads back (its
     * JSON decoded with the same Schema); a write that does not say how (`mirrored`), or that
     * failed, drops the mirror, and the next read reloads it from the rows.
     */
    const mirrors = new Map<string, SessionJournal>()
    /** `apply` of the stored body to a mirror; false when the body does not read back. */
    const storedInto = (journal: SessionJournal, body: string, apply: (journal: SessionJournal, message: Message) => void): boolean => {
      const parsed = parseMessageBody(body)
      if (parsed.ok) apply(journal, parsed.message)
      return parsed.ok
    }

    /** One transaction: claim the lease, then `body`; any failure rolls the whole write back. */
    const write = <A>(
      sessionId: string,
      doing: string,
      body: Effect.Effect<A, SessionStoreError | SqlError.SqlError>,
      mirrored?: (result: A, journal: SessionJournal) => boolean
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* claimLease(sql, owner, sessionId, { now: Date.now(), leaseMs: options.leaseMs, held: held.has(sessionId) })
            return yield* body
          })
        )
        .pipe(
          Effect.tap((result) =>
            Effect.sync(() => {
              // Held only once the claim committed: a rolled-back first write holds nothing.
              held.add(sessionId)
              const journal = mirrors.get(sessionId)
              if (journal !== undefined && (mirrored === undefined || !mirrored(result, journal))) mirrors.delete(sessionId)
            })
          ),
          Effect.tapError(() => Effect.sync(() => mirrors.delete(sessionId))),
          Effect.catchTag("SqlError", (e) => Effect.fail(unavailable(doing, sessionId)(e)))
        )

    const decodeRows = (sessionId: string, rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Message>, SessionStoreError> =>
      Effect.suspend(() => {
        const out: Array<Message> = []
        for (const [i, raw] of rows.entries()) {
          const row = decodeRow(raw)
          if (row._tag === "Failure") return Effect.fail(corrupt(sessionId, `#${i}`, `unreadable row (${row.failure.message})`))
          const parsed = parseMessageBody(row.success.body)
          if (!parsed.ok) return Effect.fail(corrupt(sessionId, `#${row.success.seq} (${row.success.id})`, parsed.problem))
          if (parsed.message.id !== row.success.id) {
            return Effect.fail(corrupt(sessionId, `#${row.success.seq} (${row.success.id})`, `holds message ${parsed.message.id}`))
          }
          out.push(parsed.message)
        }
        return Effect.succeed(out)
      })

    const messages = (sessionId: string) =>
      sql`SELECT seq, id, body FROM loopguard_messages WHERE session_id = ${sessionId} ORDER BY seq`.pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("read the session", sessionId)(e))),
        Effect.flatMap((rows) => decodeRows(sessionId, rows))
      )

    const insert = (sessionId: string, message: Message, body: string) =>
      sql`INSERT INTO loopguard_messages (session_id, seq, id, role, body, updated_at)
          VALUES (${sessionId}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM loopguard_messages WHERE session_id = ${sessionId}),
                  ${message.id}, ${message.role}, ${body}, ${Date.now()})`

    /** Read-modify-write of one stored message, inside the caller's transaction. */
    const modify = (sessionId: string, messageId: string, f: (m: Message) => Message) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT seq, id, body FROM loopguard_messages WHERE session_id = ${sessionId} AND id = ${messageId}`
        if (rows.length === 0) return null
        const [current] = yield* decodeRows(sessionId, rows)
        const body = JSON.stringify(f(current!))
        yield* sql`UPDATE loopguard_messages SET body = ${body}, updated_at = ${Date.now()}
                   WHERE session_id = ${sessionId} AND id = ${messageId}`
        return body
      })

    /** A modification, then the same on the mirror. */
    const modifyMirrored = (sessionId: string, doing: string, messageId: string, f: (m: Message) => Message) =>
      write(sessionId, doing, modify(sessionId, messageId, f), (body, journal) => body === null || storedInto(journal, body, (j, stored) => j.put(stored)))

    const store: SessionStoreShape = {
      location: options.location,
      messages: (sessionId) => messages(sessionId).pipe(Effect.withSpan("SessionStore.messages")),
      changes: (sessionId, cursor) =>
        Effect.suspend(() => {
          const journal = mirrors.get(sessionId)
          if (journal !== undefined && held.has(sessionId)) return Effect.succeed(journal.since(cursor))
          return Effect.map(messages(sessionId), (all) => {
            const fresh = new SessionJournal(all)
            if (held.has(sessionId)) mirrors.set(sessionId, fresh)
            return fresh.since(null)
          })
        }).pipe(Effect.withSpan("SessionStore.changes")),
      append: (sessionId, message) =>
        Effect.suspend(() => {
          const body = JSON.stringify(message)
          return write(
            sessionId,
            "append a message",
            Effect.gen(function* () {
              const taken = yield* sql`SELECT 1 AS one FROM loopguard_messages WHERE session_id = ${sessionId} AND id = ${message.id}`
              if (taken.length > 0) {
                return yield* new SessionStoreError({ reason: "invalid", sessionId, message: `session ${sessionId}: a message with id ${message.id} is already stored` })
              }
              yield* insert(sessionId, message, body)
            }),
            (_, journal) => storedInto(journal, body, (j, stored) => j.append(stored))
          )
        }).pipe(Effect.withSpan("SessionStore.append")),
      putAssistant: (sessionId, message: AssistantMessage) =>
        Effect.suspend(() => {
          const body = JSON.stringify(message)
          return write(
            sessionId,
            "save the reply",
            Effect.gen(function* () {
              const updated = yield* sql`UPDATE loopguard_messages SET body = ${body}, updated_at = ${Date.now()}
                                         WHERE session_id = ${sessionId} AND id = ${message.id} AND role = 'assistant' RETURNING seq`
              if (updated.length === 0) yield* insert(sessionId, message, body)
            }),
            (_, journal) => storedInto(journal, body, (j, stored) => j.put(stored))
          )
        }).pipe(Effect.withSpan("SessionStore.putAssistant")),
      exclude: (sessionId, messageId, reason) =>
        modifyMirrored(sessionId, "mark a reply excluded", messageId, (m) => (m.role === "assistant" ? { ...m, excluded: reason } : m)).pipe(
          Effect.withSpan("SessionStore.exclude")
        ),
      addCrop: (sessionId, userMessageId, crop) =>
        modifyMirrored(sessionId, "record a crop", userMessageId, (m) => (m.role === "user" ? { ...m, crops: [...(m.crops ?? []), crop] } : m)).pipe(
          Effect.withSpan("SessionStore.addCrop")
        ),
      release: (sessionId) =>
        Effect.suspend(() => {
          if (!held.has(sessionId)) return Effect.void
          held.delete(sessionId)
          mirrors.delete(sessionId)
          return releaseLease(sql, owner, sessionId).pipe(Effect.asVoid, Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("release the session", sessionId)(e))))
        }).pipe(Effect.withSpan("SessionStore.release")),
      list: () =>
        sql`SELECT s.id, s.updated_at, s.owner_host, s.owner_pid, s.lease_until,
                   (SELECT COUNT(*) FROM loopguard_messages m WHERE m.session_id = s.id) AS messages,
                   (SELECT COUNT(*) FROM loopguard_messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS steps
            FROM loopguard_sessions s ORDER BY s.updated_at DESC, s.id`.pipe(
          Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("list sessions")(e))),
          Effect.flatMap((rows) =>
            Effect.forEach(rows, (raw, i) => {
              const decoded = decodeSummary(raw)
              if (decoded._tag === "Failure") {
                return Effect.fail(new SessionStoreError({ reason: "corrupt", message: `the session list, row ${i}: ${decoded.failure.message}` }))
              }
              const r = decoded.success
              const live = r.lease_until !== null && Number(r.lease_until) >= Date.now()
              const writer = live ? holderLabel(r.owner_host, r.owner_pid) : null
              return Effect.succeed<SessionSummary>({ id: r.id, messages: Number(r.messages), steps: Number(r.steps), updatedAt: Number(r.updated_at), writer })
            })
          ),
          Effect.withSpan("SessionStore.list")
        )
    }

    // Heartbeat: a lease this process holds stays fresh while it lives, however long a step runs.
    yield* Effect.forkScoped(
      Effect.suspend(() => Effect.forEach([...held], (id) => renewLease(sql, owner, id, Date.now(), options.leaseMs).pipe(Effect.ignore), { discard: true })).pipe(
        Effect.repeat(Schedule.spaced(Duration.millis(Math.max(50, Math.floor(options.leaseMs / 3)))))
      )
    )
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...held], (id) => releaseLease(sql, owner, id).pipe(Effect.ignore), { discard: true }).pipe(
        // A closed store holds no session: whatever still references it must not keep the mirrors alive.
        Effect.andThen(Effect.sync(() => mirrors.clear()))
      )
    )
    return store
  })
