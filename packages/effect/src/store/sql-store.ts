/**
 * The SessionStore over Effect's SqlClient: the same code for SQLite (embedded default) and
 * Postgres (workers sharing sessions). Each message is one row (JSON body, decoded with Schema on
 * read); every write is one transaction that first claims the session's lease (lease.ts), so a
 * failed write (disk full, read-only, lease lost) rolls back whole and the session stays loadable.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { Duration, Effect, Schedule, Schema, Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { detachedTimeout } from "./deadline.js"
import { claimLease, holderLabel, makeOwner, releaseLease, renewLease } from "./lease.js"
import { parseMessageBody } from "./message-schema.js"
import { checkSchema, migrate } from "./migrations.js"
import { importProblem, repeatedIdProblem, storedAlready, type SessionStoreShape, type SessionSummary } from "./SessionStore.js"
import { SessionJournal } from "./session-journal.js"
import { statementRuns } from "./statement-runs.js"
import { describeCause, SessionStoreError } from "./SessionStoreError.js"

export interface SqlStoreOptions {
  /** What the run report prints as "saved at" for a session. */
  readonly location: (sessionId: string) => string
  readonly leaseMs: number
  /** The deadline of one call (config `store.timeoutMs`); past it the call fails as `unavailable`. */
  readonly timeoutMs: number
  /** Opened from a read-only medium: the schema is checked, not migrated; writes fail as `unavailable`. */
  readonly readOnly?: boolean
  /** The database as errors name it (its file, or its URL without the password). */
  readonly shown?: string
}

/** SQLite gives numbers; Postgres gives BIGINT as bigint and COUNT(*) as bigint or string. */
const Num = Schema.Union([Schema.Number, Schema.NumberFromString, Schema.BigInt])
const MessageRow = Schema.Struct({ seq: Num, id: Schema.String, role: Schema.String, body: Schema.String })
const SummaryRow = Schema.Struct({
  id: Schema.String,
  updated_at: Num,
  owner_host: Schema.NullOr(Schema.String),
  owner_pid: Schema.NullOr(Num),
  lease_until: Schema.NullOr(Num),
  messages: Num,
  steps: Num
})
const LeaseRow = Schema.Struct({ id: Schema.String, owner: Schema.NullOr(Schema.String), lease_until: Schema.NullOr(Num) })
const decodeRow = Schema.decodeUnknownResult(MessageRow)
const decodeLease = Schema.decodeUnknownResult(LeaseRow)
const decodeSummary = Schema.decodeUnknownResult(SummaryRow)

/** A driver failure as the store's error: what failed, for which session, and the driver's words. */
const unavailable = (doing: string, sessionId?: string) => (e: SqlError.SqlError) =>
  new SessionStoreError({
    reason: "unavailable",
    ...(sessionId !== undefined ? { sessionId } : {}),
    message: `${sessionId !== undefined ? `session ${sessionId}: ` : ""}could not ${doing}: ${describeCause(e)}`,
    cause: e
  })

/**
 * `self` under the store's deadline (config `store.timeoutMs`): past it, `unavailable` in one line.
 * A driver that dies instead of failing (a connection lost mid-transaction, whose rollback fails
 * too) fails as `unavailable` as well: a store call never takes its caller's process down.
 */
export const withDeadline = (timeoutMs: number, doing: string, sessionId?: string) =>
  <A, R>(self: Effect.Effect<A, SessionStoreError, R>): Effect.Effect<A, SessionStoreError, R> =>
    detachedTimeout(Effect.catchDefect(self, (defect) => Effect.fail(unavailable(doing, sessionId)(defect as SqlError.SqlError))), timeoutMs, () =>
      Effect.fail(
        new SessionStoreError({
          reason: "unavailable",
          ...(sessionId !== undefined ? { sessionId } : {}),
          message: `${sessionId !== undefined ? `session ${sessionId}: ` : ""}could not ${doing}: the session store did not answer within ${timeoutMs / 1000}s (store.timeoutMs); is the database still running?`
        })
      )
    )

const corrupt = (sessionId: string, record: string, problem: string) =>
  new SessionStoreError({ reason: "corrupt", sessionId, message: `session ${sessionId}, record ${record}: ${problem}; the session cannot be loaded` })

/**
 * What stands in for a stored message that cannot be read: the rest of the session stays usable,
 * and the stand-in keeps the record's id (never issued again) and says which record was dropped
 * and why. A reply's stand-in is left out of requests (`excluded`); a user message's tells the model.
 */
export const unreadableRecord = (sessionId: string, row: { readonly seq: unknown; readonly id: string; readonly role: string }, problem: string): Message => {
  const note = `[loopguard: session ${sessionId}, record #${String(row.seq)} (${row.id}) could not be read and was left out: ${problem}]`
  return row.role === "assistant"
    ? { role: "assistant", id: row.id, parentId: "", step: 0, parts: [{ type: "text", text: note, synthetic: true }], finish: "error", excluded: "replayed" }
    : { role: "user", id: row.id, text: note, synthetic: "unreadable-record" }
}

export const makeSqlStore = (options: SqlStoreOptions): Effect.Effect<SessionStoreShape, SessionStoreError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const preparing = `prepare the session database${options.shown !== undefined ? ` ${options.shown}` : ""}`
    yield* (options.readOnly === true ? checkSchema : migrate).pipe(
      Effect.catchTag("SqlError", (e) => Effect.fail(unavailable(preparing)(e))),
      withDeadline(options.timeoutMs, preparing)
    )
    const owner = makeOwner()
    /** The sessions this store holds the write lease of, with the fencing token it acquired. */
    const held = new Map<string, number>()
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
      mirrored?: (result: A, journal: SessionJournal) => boolean,
      letGo = false
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const token = yield* claimLease(sql, owner, sessionId, { now: Date.now(), leaseMs: options.leaseMs, token: held.get(sessionId) })
            const result = yield* body
            if (letGo) yield* releaseLease(sql, owner, sessionId, token)
            return [result, token] as const
          })
        )
        .pipe(
          Effect.map(([result, token]) => {
            // Held only once the claim committed: a rolled-back first write holds nothing. A lost
            // lease keeps its stale token, so every later write of this store is refused too.
            if (!letGo) held.set(sessionId, token)
            else {
              held.delete(sessionId)
              mirrors.delete(sessionId)
            }
            return result
          }),
          Effect.tap((result) =>
            Effect.sync(() => {
              const journal = mirrors.get(sessionId)
              if (journal !== undefined && (mirrored === undefined || !mirrored(result, journal))) mirrors.delete(sessionId)
            })
          ),
          Effect.catchTag("SqlError", (e) => Effect.fail(unavailable(doing, sessionId)(e))),
          withDeadline(options.timeoutMs, doing, sessionId),
          // Failed or past its deadline (committed or not): the mirror is reloaded from the rows.
          Effect.tapError(() => Effect.sync(() => mirrors.delete(sessionId)))
        )

    const decodeRows = (sessionId: string, rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Message>, SessionStoreError> =>
      Effect.suspend(() => {
        const out: Array<Message> = []
        for (const [i, raw] of rows.entries()) {
          const row = decodeRow(raw)
          if (row._tag === "Failure") return Effect.fail(corrupt(sessionId, `#${i}`, `unreadable row (${row.failure.message})`))
          // One damaged record does not make the session unusable: it is replaced by a stand-in naming it.
          const parsed = parseMessageBody(row.success.body)
          if (!parsed.ok) out.push(unreadableRecord(sessionId, row.success, parsed.problem))
          else if (parsed.message.id !== row.success.id) out.push(unreadableRecord(sessionId, row.success, `holds message ${parsed.message.id}`))
          else out.push(parsed.message)
        }
        return Effect.succeed(out)
      })

    const messages = (sessionId: string) =>
      sql`SELECT seq, id, role, body FROM loopguard_messages WHERE session_id = ${sessionId} ORDER BY seq`.pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("read the session", sessionId)(e))),
        Effect.flatMap((rows) => decodeRows(sessionId, rows)),
        withDeadline(options.timeoutMs, "read the session", sessionId)
      )

    const insert = (sessionId: string, message: Message, body: string) =>
      sql`INSERT INTO loopguard_messages (session_id, seq, id, role, body, updated_at)
          VALUES (${sessionId}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM loopguard_messages WHERE session_id = ${sessionId}),
                  ${message.id}, ${message.role}, ${body}, ${Date.now()})`

    /**
     * An insert that refuses an id the session already holds, inside the caller's transaction: one
     * statement (on SQLite each is a message to the database's thread), no row when it is taken.
     */
    const insertNew = (sessionId: string, message: Message, body: string) =>
      Effect.gen(function* () {
        const inserted = yield* sql`INSERT INTO loopguard_messages (session_id, seq, id, role, body, updated_at)
          SELECT ${sessionId}, (SELECT COALESCE(MAX(seq) + 1, 0) FROM loopguard_messages WHERE session_id = ${sessionId}),
                 ${message.id}, ${message.role}, ${body}, ${Date.now()}
          WHERE NOT EXISTS (SELECT 1 FROM loopguard_messages WHERE session_id = ${sessionId} AND id = ${message.id})
          RETURNING seq`
        if (inserted.length === 0) return yield* storedAlready(sessionId, message.id)
      })

    /** Read-modify-write of one stored message, inside the caller's transaction. */
    const modify = (sessionId: string, messageId: string, f: (m: Message) => Message) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT seq, id, role, body FROM loopguard_messages WHERE session_id = ${sessionId} AND id = ${messageId}`
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
            insertNew(sessionId, message, body),
            (_, journal) => storedInto(journal, body, (j, stored) => j.append(stored))
          )
        }).pipe(Effect.withSpan("SessionStore.append")),
      messageIds: (sessionId) =>
        sql`SELECT id FROM loopguard_messages WHERE session_id = ${sessionId} ORDER BY seq`.pipe(
          Effect.map((rows) => rows.map((row) => String((row as { readonly id: unknown }).id))),
          Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("read the session", sessionId)(e))),
          withDeadline(options.timeoutMs, "read the session", sessionId),
          Effect.withSpan("SessionStore.messageIds")
        ),
      appendAll: (sessionId, messages, appendOptions) =>
        Effect.suspend(() => {
          const problem = repeatedIdProblem(sessionId, messages, "nothing was appended")
          if (problem !== null) return Effect.fail(problem)
          const bodies = messages.map((m) => JSON.stringify(m))
          return write(
            sessionId,
            "append messages",
            Effect.forEach(messages, (m, i) => insertNew(sessionId, m, bodies[i]!), { discard: true }),
            (_, journal) => bodies.every((body) => storedInto(journal, body, (j, stored) => j.append(stored))),
            appendOptions?.release === true
          )
        }).pipe(Effect.withSpan("SessionStore.appendAll")),
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
      importSession: (sessionId, messages) =>
        write(
          sessionId,
          "import the session",
          Effect.gen(function* () {
            const stored = yield* sql`SELECT 1 AS one FROM loopguard_messages WHERE session_id = ${sessionId} LIMIT 1`
            const problem = importProblem(sessionId, stored.length > 0, messages)
            if (problem !== null) return yield* problem
            for (const m of messages) yield* insert(sessionId, m, JSON.stringify(m))
          })
        ).pipe(Effect.withSpan("SessionStore.importSession")),
      release: (sessionId) =>
        Effect.suspend(() => {
          const token = held.get(sessionId)
          if (token === undefined) return Effect.void
          // Let go for good: a later write acquires the lease again, with a new fencing token.
          held.delete(sessionId)
          mirrors.delete(sessionId)
          return releaseLease(sql, owner, sessionId, token).pipe(Effect.asVoid, Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("release the session", sessionId)(e))))
        }).pipe(Effect.withSpan("SessionStore.release")),
      list: () =>
        sql`SELECT s.id, s.updated_at, s.owner_host, s.owner_pid, s.lease_until,
                   (SELECT COUNT(*) FROM loopguard_messages m WHERE m.session_id = s.id) AS messages,
                   (SELECT COUNT(*) FROM loopguard_messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS steps
            FROM loopguard_sessions s ORDER BY s.updated_at DESC, s.id`.pipe(
          Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("list sessions")(e))),
          withDeadline(options.timeoutMs, "list sessions"),
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
        ),
      remove: (sessionIds) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const now = Date.now()
              const removed: Array<string> = []
              const busy: Array<string> = []
              for (const ids of statementRuns([...new Set(sessionIds)])) {
                for (const raw of yield* sql`SELECT id, owner, lease_until FROM loopguard_sessions WHERE ${sql.in("id", ids)}`) {
                  const row = decodeLease(raw)
                  if (row._tag === "Failure") return yield* new SessionStoreError({ reason: "corrupt", message: `a session row: ${row.failure.message}` })
                  const { id, owner: holder, lease_until } = row.success
                  const live = lease_until !== null && Number(lease_until) >= now && holder !== owner.id
                  ;(live ? busy : removed).push(id)
                }
              }
              for (const ids of statementRuns(removed)) {
                yield* sql`DELETE FROM loopguard_messages WHERE ${sql.in("session_id", ids)}`
                yield* sql`DELETE FROM loopguard_sessions WHERE ${sql.in("id", ids)}`
              }
              return { removed, busy }
            })
          )
          .pipe(
            Effect.tap(({ removed }) =>
              Effect.sync(() => {
                for (const id of removed) {
                  held.delete(id)
                  mirrors.delete(id)
                }
              })
            ),
            Effect.catchTag("SqlError", (e) => Effect.fail(unavailable("delete sessions")(e))),
            withDeadline(options.timeoutMs, "delete sessions"),
            Effect.withSpan("SessionStore.remove")
          )
    }

    // Heartbeat: a lease this process holds stays fresh while it lives, however long a step runs.
    yield* Effect.forkScoped(
      Effect.suspend(() => Effect.forEach([...held], ([id, token]) => renewLease(sql, owner, id, token, Date.now(), options.leaseMs).pipe(Effect.mapError(unavailable("renew the lease", id)), withDeadline(options.timeoutMs, "renew the lease", id), Effect.ignore), { discard: true })).pipe(
        Effect.repeat(Schedule.spaced(Duration.millis(Math.max(50, Math.floor(options.leaseMs / 3)))))
      )
    )
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...held], ([id, token]) => releaseLease(sql, owner, id, token).pipe(Effect.mapError(unavailable("release the lease", id)), withDeadline(options.timeoutMs, "release the lease", id), Effect.ignore), { discard: true }).pipe(
        // A closed store holds no session: whatever still references it must not keep the mirrors alive.
        Effect.andThen(Effect.sync(() => mirrors.clear()))
      )
    )
    return store
  })
