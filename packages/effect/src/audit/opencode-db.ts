/**
 * What OpenCode keeps by itself: one SQLite database (`~/.local/share/opencode/opencode.db`; its
 * fork Kilo's `~/.local/share/kilo/kilo.db` is the same), every session in it. Its `session`,
 * `message` and `part` tables hold what `opencode export SESSION` prints — a message's and a part's
 * JSON in `data`, their ids, session and message in columns — so each session is rebuilt as that
 * export document (`{info, messages: [{info, parts}]}`, messages in the order they were created,
 * parts in id order) and audited as an `opencode` log, one run per session, like a folder of logs.
 *
 * The database is opened read-only with the SQLite built into the runtime (`bun:sqlite` under Bun,
 * `node:sqlite` under Node ≥ 22.13) and never written: no checkpoint, no migration, no file
 * created beside it; a database OpenCode still has open is read as of its last commit (its
 * write-ahead log included; SQLite may refresh the log's shared-memory index, `-shm`, as every
 * reader does). Nothing but those three tables is read (the database also holds account tokens).
 */
import { Effect } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import { auditConfig } from "./audit-config.js"
import { auditFile, type AuditProgress } from "./audit-file.js"
import type { AuditResult } from "./audit-trace.js"
import { copyFileSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { headOf } from "./detect-file.js"
import { tmpdir } from "node:os"
import { join } from "node:path"

export { isSqliteFile } from "./detect-file.js"

/** Whether the database keeps a write-ahead log (its header's read and write versions are 2). */
const isWalMode = (path: string): boolean => {
  const head = headOf(path, 20)
  return head !== null && head[18] === 2 && head[19] === 2
}

/** One session in the database. */
export interface StoredOpenCodeSession {
  readonly id: string
  readonly title: string
  /** The session it is a sub-agent's run of (a `task` call), if any. */
  readonly parentId: string | null
}

type Row = Record<string, unknown>

/** The little both runtimes' SQLite share: prepared statements whose `all` gives row objects. */
interface Db {
  prepare(sql: string): { all(...params: ReadonlyArray<unknown>): ReadonlyArray<Row> }
  close(): void
}

/* eslint-disable @typescript-eslint/no-explicit-any */
const builtin = (id: string): any => (process as any).getBuiltinModule?.(id)

/** Opens `file` with the runtime's SQLite (`uri`: a `file:` URI with its parameters). */
const openWith = (file: string, readOnly: boolean, uri = false): Db => {
  if (typeof (globalThis as any).Bun !== "undefined") {
    const { Database } = builtin("bun:sqlite")
    // SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
    return uri ? new Database(file, 0x01 | 0x40) : new Database(file, { readonly: readOnly })
  }
  // node:sqlite's one-time "experimental" warning is not for the user.
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: any, ...rest: Array<any>) => {
    if (String(warning instanceof Error ? warning.message : warning).includes("SQLite is an experimental feature")) return
    return (emitWarning as any).call(process, warning, ...rest)
  }) as any
  try {
    const sqlite = builtin("node:sqlite")
    if (sqlite === undefined) throw new Error(`reading it needs Bun or Node ≥ 22.13 (node:sqlite); this is Node ${process.versions.node}`)
    return new sqlite.DatabaseSync(file, { readOnly })
  } finally {
    process.emitWarning = emitWarning
  }
}

/**
 * The database and its write-ahead log copied to a private folder and opened there (removed when
 * closed): reading the log in place would create its shared-memory index (`-shm`) beside it.
 */
const openCopy = (path: string): Db => {
  const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-db-"))
  try {
    copyFileSync(path, join(dir, "copy.db"))
    copyFileSync(`${path}-wal`, join(dir, "copy.db-wal"))
    const db = openWith(join(dir, "copy.db"), false)
    const close = () => {
      try {
        db.close()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
    return { prepare: (sql) => db.prepare(sql), close }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
}

/**
 * Opens the database at `given` for reading only; throws when it cannot. A link is followed first
 * (the log lies beside the database, not the link). A database in WAL mode that nobody has open
 * (no log beside it) is opened as immutable: a plain read-only open would create empty -wal and
 * -shm files. One with its log and the log's index is read through them, as of its last commit;
 * with a log but no index, from a private copy of both. Any other (a rollback journal, perhaps a
 * writer mid-transaction) is opened read-only as it is, so SQLite's locks and journal are heeded.
 */
const openReadOnly = (given: string): Db => {
  const path = realpathSync(given)
  const wal = existsSync(`${path}-wal`)
  if (isWalMode(path) && !wal && !existsSync(`${path}-journal`)) {
    return openWith(`file:${path.split("/").map(encodeURIComponent).join("/")}?immutable=1`, true, true)
  }
  if (wal && !existsSync(`${path}-shm`)) return openCopy(path)
  const db = openWith(path, true)
  db.prepare("PRAGMA busy_timeout = 2000").all()
  return db
}
/* eslint-enable @typescript-eslint/no-explicit-any */

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Why `file` cannot be read as OpenCode's database, as the audit reports it. */
const cannotRead = (file: string, e: unknown): string => `${file}: cannot read OpenCode's database: ${message(e)}`

/** Runs `f` on the database at `path`, opened read-only and closed after; a failure is the reason, naming the file. */
const withDb = <A>(path: string, name: string, f: (db: Db) => A): Effect.Effect<A, string> =>
  Effect.try({
    try: () => {
      const db = openReadOnly(path)
      try {
        const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r["name"]))
        const missing = ["session", "message", "part"].filter((t) => !tables.has(t))
        if (missing.length > 0) throw new Error(`a SQLite database, but not OpenCode's (no ${missing.join(", ")} table)`)
        return f(db)
      } finally {
        db.close()
      }
    },
    catch: (e) => cannotRead(name, e)
  })

const text = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v))
const count = (v: unknown): number => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0)

/** The sessions in OpenCode's database at `path`, oldest first (`name` is what errors call the file). */
export const openCodeDbSessions = (path: string, name: string = path): Effect.Effect<ReadonlyArray<StoredOpenCodeSession>, string> =>
  withDb(path, name, (db) =>
    db
      .prepare("SELECT id, title, parent_id FROM session ORDER BY time_created, id")
      .all()
      .map((r) => ({ id: text(r["id"]), title: text(r["title"]), parentId: r["parent_id"] === null || r["parent_id"] === undefined ? null : text(r["parent_id"]) }))
  )

/**
 * A JSON column's object. One that does not parse is kept with the id and a `type` that names the
 * row (`unreadable: part prt_…`), so the reader's note says which row it could not use.
 */
const dataOf = (v: unknown, row: string): Record<string, unknown> => {
  try {
    const o: unknown = JSON.parse(text(v))
    if (o !== null && typeof o === "object" && !Array.isArray(o)) return o as Record<string, unknown>
  } catch {
    // Kept below, named.
  }
  return { type: `unreadable: ${row} (its data is not a JSON object)`, role: `unreadable: ${row} (its data is not a JSON object)` }
}

/**
 * Session `id` of the database at `path` as the export document OpenCode prints for it
 * (`opencode export`), two-space indented; fails when the database cannot be read or holds no
 * such session.
 */
export const openCodeDbExport = (path: string, id: string, name: string = path): Effect.Effect<string, string> =>
  withDb(path, name, (db) => {
    const s = db.prepare("SELECT * FROM session WHERE id = ?").all(id)[0]
    if (s === undefined) throw new Error(`no session ${id} in it`)
    // One read of the session's parts (a database without OpenCode's index on message_id would
    // otherwise be scanned once per message), grouped by message in id order.
    const partsOf = new Map<string, Array<Record<string, unknown>>>()
    for (const p of db.prepare("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id").all(id)) {
      const message = text(p["message_id"])
      const list = partsOf.get(message) ?? []
      list.push({ ...dataOf(p["data"], `part ${text(p["id"])}`), id: text(p["id"]), sessionID: id, messageID: message })
      partsOf.set(message, list)
    }
    const messages = db
      .prepare("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id")
      .all(id)
      .map((m) => ({ info: { ...dataOf(m["data"], `message ${text(m["id"])}`), id: text(m["id"]), sessionID: id }, parts: partsOf.get(text(m["id"])) ?? [] }))
    const info = {
      id,
      slug: text(s["slug"]),
      projectID: text(s["project_id"]),
      directory: text(s["directory"]),
      ...(s["parent_id"] !== null && s["parent_id"] !== undefined ? { parentID: text(s["parent_id"]) } : {}),
      title: text(s["title"]),
      version: text(s["version"]),
      time: { created: count(s["time_created"]), updated: count(s["time_updated"]) }
    }
    return `${JSON.stringify({ info, messages }, null, 2)}\n`
  })

/**
 * Session `id` of the database at `path` written as its export document to a private temporary
 * file for the scope's lifetime (the audit reads a log twice, and the page a third time).
 */
export const spoolOpenCodeSession = (path: string, id: string, name: string = path) =>
  Effect.acquireRelease(
    Effect.flatMap(openCodeDbExport(path, id, name), (doc) =>
      Effect.try({
        try: () => {
          const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-opencode-"))
          // A name of our own: a session id can be longer than a file name may be.
          const file = join(dir, "session.json")
          try {
            writeFileSync(file, doc, { mode: 0o600 })
          } catch (e) {
            rmSync(dir, { recursive: true, force: true })
            throw e
          }
          return file
        },
        catch: (e) => `${name}: cannot write session ${id} to a temporary file: ${message(e)}`
      })
    ),
    (file) => Effect.sync(() => rmSync(join(file, ".."), { recursive: true, force: true }))
  )

/** The name a session's run is reported under: the database and the session's id. */
export const storedSessionName = (file: string, id: string): string => `${file}#${id}`

/** Session `id` of the database at `path` audited as an `opencode` log, reported as `name#id`. */
export const auditStoredSession = (path: string, id: string, config: LoopguardConfig = auditConfig(), name: string = path, progress?: AuditProgress): Effect.Effect<AuditResult> =>
  Effect.scoped(
    Effect.gen(function* () {
      const run = storedSessionName(name, id)
      const spooled = yield* Effect.result(spoolOpenCodeSession(path, id, name))
      if (spooled._tag === "Failure") return { _tag: "failed" as const, file: run, errors: [spooled.failure] }
      return yield* auditFile({ path: spooled.success, name: run, format: "opencode" }, config, progress)
    })
  )

/**
 * Every session in OpenCode's database at `path`, each audited as its own run; one failed result
 * naming the file when the database cannot be read.
 */
export const auditOpenCodeDb = (path: string, config: LoopguardConfig = auditConfig(), name: string = path): Effect.Effect<Array<AuditResult>> =>
  Effect.gen(function* () {
    const sessions = yield* Effect.result(openCodeDbSessions(path, name))
    if (sessions._tag === "Failure") return [{ _tag: "failed" as const, file: name, errors: [sessions.failure] }]
    return yield* Effect.forEach(sessions.success, (s) => auditStoredSession(path, s.id, config, name))
  })
