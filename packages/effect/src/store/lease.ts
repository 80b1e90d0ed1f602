/**
 * One writer per session: a lease row on `loopguard_sessions` (owner, host, pid, lease_until).
 * Every write transaction claims or renews it first, so the claim is also the fence: a writer
 * whose lease was taken over fails that write instead of interleaving with the new owner. A
 * lease held by a process that is gone (same host, pid not alive: kill -9) is taken over at once;
 * otherwise it must expire (`store.leaseMs`, kept fresh by a heartbeat while the owner lives).
 */
import { Effect, Schema } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { hostname } from "node:os"
import { SessionStoreError } from "./SessionStoreError.js"

export interface LeaseOwner {
  /** Unique per store instance: two stores in one process are two writers. */
  readonly id: string
  readonly host: string
  readonly pid: number
}

export const makeOwner = (): LeaseOwner => ({
  id: `${hostname()}:${process.pid}:${crypto.randomUUID()}`,
  host: hostname(),
  pid: process.pid
})

/** SQLite gives numbers; Postgres gives BIGINT as bigint and COUNT(*) as bigint or string. */
const Num = Schema.Union([Schema.Number, Schema.NumberFromString, Schema.BigInt])

const HolderRow = Schema.Struct({
  owner: Schema.NullOr(Schema.String),
  owner_host: Schema.NullOr(Schema.String),
  owner_pid: Schema.NullOr(Num),
  lease_until: Schema.NullOr(Num)
})
const decodeHolder = Schema.decodeUnknownResult(HolderRow)

export const holderLabel = (host: string | null, pid: number | bigint | null): string => `${host ?? "?"}:${pid ?? "?"}`

const processGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/**
 * Claims or renews `sessionId` for `owner` inside the caller's transaction. `held` says whether
 * this owner had it before, which turns a refusal into "lease lost" rather than "locked".
 */
export const claimLease = (
  sql: SqlClient.SqlClient,
  owner: LeaseOwner,
  sessionId: string,
  options: { readonly now: number; readonly leaseMs: number; readonly held: boolean }
): Effect.Effect<void, SessionStoreError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const until = options.now + options.leaseMs
    const claimed = yield* sql`
      INSERT INTO loopguard_sessions (id, created_at, updated_at, owner, owner_host, owner_pid, lease_until)
      VALUES (${sessionId}, ${options.now}, ${options.now}, ${owner.id}, ${owner.host}, ${owner.pid}, ${until})
      ON CONFLICT (id) DO UPDATE SET
        updated_at = excluded.updated_at, owner = excluded.owner, owner_host = excluded.owner_host,
        owner_pid = excluded.owner_pid, lease_until = excluded.lease_until
      WHERE loopguard_sessions.owner IS NULL OR loopguard_sessions.owner = excluded.owner
        OR loopguard_sessions.lease_until < excluded.updated_at
      RETURNING id`
    if (claimed.length > 0) return
    const rows = yield* sql`SELECT owner, owner_host, owner_pid, lease_until FROM loopguard_sessions WHERE id = ${sessionId}`
    const decoded = decodeHolder(rows[0])
    if (decoded._tag === "Failure") {
      return yield* new SessionStoreError({ reason: "corrupt", sessionId, message: `session ${sessionId}: its lease record is unreadable (${decoded.failure.message})` })
    }
    const holder = decoded.success
    const pid = holder.owner_pid === null ? null : Number(holder.owner_pid)
    const leaseUntil = holder.lease_until === null ? null : Number(holder.lease_until)
    if (holder.owner !== null && holder.owner_host === owner.host && pid !== null && processGone(pid)) {
      const taken = yield* sql`
        UPDATE loopguard_sessions SET updated_at = ${options.now}, owner = ${owner.id}, owner_host = ${owner.host},
          owner_pid = ${owner.pid}, lease_until = ${until}
        WHERE id = ${sessionId} AND owner = ${holder.owner}
        RETURNING id`
      if (taken.length > 0) return
    }
    const who = holderLabel(holder.owner_host, pid)
    const left = leaseUntil === null ? 0 : Math.max(0, Math.ceil((leaseUntil - options.now) / 1000))
    return yield* new SessionStoreError({
      reason: options.held ? "lease-lost" : "locked",
      sessionId,
      message: options.held
        ? `session ${sessionId}: this process lost its write lease to ${who}; nothing more was written`
        : `session ${sessionId} is being written by another process (${who}); its lease expires in ${left}s unless renewed — wait, or use another session id`
    })
  })

export const renewLease = (sql: SqlClient.SqlClient, owner: LeaseOwner, sessionId: string, now: number, leaseMs: number) =>
  sql`UPDATE loopguard_sessions SET lease_until = ${now + leaseMs} WHERE id = ${sessionId} AND owner = ${owner.id}`

export const releaseLease = (sql: SqlClient.SqlClient, owner: LeaseOwner, sessionId: string) =>
  sql`UPDATE loopguard_sessions SET owner = NULL, owner_host = NULL, owner_pid = NULL, lease_until = NULL
      WHERE id = ${sessionId} AND owner = ${owner.id}`
