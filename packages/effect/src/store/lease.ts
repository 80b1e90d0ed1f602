/**
 * One writer per session: a lease row on `loopguard_sessions` (owner, host, pid, lease_until,
 * lease_token). Every acquisition bumps `lease_token`, a fencing token: a writer that holds the
 * lease renews it in each write transaction only where owner AND token are still its own, so a
 * writer that was paused past its lease (SIGSTOP, a debugger, a paused VM) fails its next write
 * even after the new owner finished and released the session, instead of taking the free lease
 * back and writing over the newer work. A lease held by a process that is gone (same host, pid
 * not alive: kill -9) is taken over at once; otherwise it must expire (`store.leaseMs`, kept
 * fresh by a heartbeat while the owner lives).
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
  lease_until: Schema.NullOr(Num),
  lease_token: Num
})
const TokenRow = Schema.Struct({ lease_token: Num })
const decodeToken = Schema.decodeUnknownResult(TokenRow)
/** The token a claim returned (its first row), or null when the claim matched no row. */
const tokenOf = (rows: ReadonlyArray<unknown>): number | null => {
  if (rows.length === 0) return null
  const decoded = decodeToken(rows[0])
  return decoded._tag === "Success" ? Number(decoded.success.lease_token) : null
}
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

/** The current holder of a session's lease, for the words of a refusal. */
const readHolder = (sql: SqlClient.SqlClient, sessionId: string) =>
  Effect.gen(function* () {
    const rows = yield* sql`SELECT owner, owner_host, owner_pid, lease_until, lease_token FROM loopguard_sessions WHERE id = ${sessionId}`
    const decoded = decodeHolder(rows[0])
    if (decoded._tag === "Failure") {
      return yield* new SessionStoreError({ reason: "corrupt", sessionId, message: `session ${sessionId}: its lease record is unreadable (${decoded.failure.message})` })
    }
    return decoded.success
  })

/**
 * Renews the lease this owner acquired with `token`, inside the caller's transaction. Fails
 * `lease-lost` when the session's owner or token changed since: another writer acquired it
 * meanwhile, even if that writer has released it again.
 */
const renewHeld = (sql: SqlClient.SqlClient, owner: LeaseOwner, sessionId: string, token: number, now: number, until: number) =>
  Effect.gen(function* () {
    const renewed = yield* sql`
      UPDATE loopguard_sessions SET updated_at = ${now}, lease_until = ${until}
      WHERE id = ${sessionId} AND owner = ${owner.id} AND lease_token = ${token}
      RETURNING lease_token`
    if (renewed.length > 0) return token
    const holder = yield* readHolder(sql, sessionId)
    const since = `session ${sessionId}: this process's write lease (token ${token}) was taken over while it was not renewed`
    return yield* new SessionStoreError({
      reason: "lease-lost",
      sessionId,
      message:
        holder.owner === null
          ? `${since}, and that writer has already finished (lease token now ${Number(holder.lease_token)}); nothing more was written, its work is kept`
          : `${since} by ${holderLabel(holder.owner_host, holder.owner_pid === null ? null : Number(holder.owner_pid))}; nothing more was written`
    })
  })

/**
 * Claims `sessionId` for `owner` inside the caller's transaction and returns the lease's fencing
 * token. `token` is the one this owner acquired before (it holds the lease): then the lease is
 * only renewed, and a changed owner or token is `lease-lost`. Without it the lease is acquired:
 * free, expired or held by a dead process on this host, with a new token; else `locked`.
 */
export const claimLease = (
  sql: SqlClient.SqlClient,
  owner: LeaseOwner,
  sessionId: string,
  options: { readonly now: number; readonly leaseMs: number; readonly token: number | undefined }
): Effect.Effect<number, SessionStoreError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const until = options.now + options.leaseMs
    if (options.token !== undefined) return yield* renewHeld(sql, owner, sessionId, options.token, options.now, until)
    const claimed = tokenOf(
      yield* sql`
      INSERT INTO loopguard_sessions (id, created_at, updated_at, owner, owner_host, owner_pid, lease_until, lease_token)
      VALUES (${sessionId}, ${options.now}, ${options.now}, ${owner.id}, ${owner.host}, ${owner.pid}, ${until}, 1)
      ON CONFLICT (id) DO UPDATE SET
        updated_at = excluded.updated_at, owner = excluded.owner, owner_host = excluded.owner_host,
        owner_pid = excluded.owner_pid, lease_until = excluded.lease_until,
        lease_token = loopguard_sessions.lease_token + 1
      WHERE loopguard_sessions.owner IS NULL OR loopguard_sessions.lease_until < excluded.updated_at
      RETURNING lease_token`
    )
    if (claimed !== null) return claimed
    const holder = yield* readHolder(sql, sessionId)
    const pid = holder.owner_pid === null ? null : Number(holder.owner_pid)
    const leaseUntil = holder.lease_until === null ? null : Number(holder.lease_until)
    if (holder.owner !== null && holder.owner_host === owner.host && pid !== null && processGone(pid)) {
      const taken = tokenOf(
        yield* sql`
        UPDATE loopguard_sessions SET updated_at = ${options.now}, owner = ${owner.id}, owner_host = ${owner.host},
          owner_pid = ${owner.pid}, lease_until = ${until}, lease_token = lease_token + 1
        WHERE id = ${sessionId} AND owner = ${holder.owner}
        RETURNING lease_token`
      )
      if (taken !== null) return taken
    }
    const left = leaseUntil === null ? 0 : Math.max(0, Math.ceil((leaseUntil - options.now) / 1000))
    return yield* new SessionStoreError({
      reason: "locked",
      sessionId,
      message: `session ${sessionId} is being written by another process (${holderLabel(holder.owner_host, pid)}); its lease expires in ${left}s unless renewed — wait, or use another session id`
    })
  })

/** The heartbeat: extends a lease this owner still holds with `token`; a lost one is left alone. */
export const renewLease = (sql: SqlClient.SqlClient, owner: LeaseOwner, sessionId: string, token: number, now: number, leaseMs: number) =>
  sql`UPDATE loopguard_sessions SET lease_until = ${now + leaseMs} WHERE id = ${sessionId} AND owner = ${owner.id} AND lease_token = ${token}`

/** Frees a lease this owner still holds with `token`; the token stays, so the next writer's is higher. */
export const releaseLease = (sql: SqlClient.SqlClient, owner: LeaseOwner, sessionId: string, token: number) =>
  sql`UPDATE loopguard_sessions SET owner = NULL, owner_host = NULL, owner_pid = NULL, lease_until = NULL
      WHERE id = ${sessionId} AND owner = ${owner.id} AND lease_token = ${token}`
