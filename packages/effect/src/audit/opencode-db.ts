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
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The 16 bytes every SQLite database file starts with. */
const SQLITE_HEADER = "SQLite format 3\0"

/** Whether `path` is a SQLite database file (by its header); false when it cannot be read. */
export const isSqliteFile = (path: string): boolean => {
  let fd: number | undefined
  try {
    fd = openSync(path, "r")
    const head = Buffer.alloc(16)
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString("latin1") === SQLITE_HEADER
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
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

/**
 * Opens `path` read-only with the runtime's SQLite; throws when it cannot. With its write-ahead
 * log present (OpenCode has it open, or did not close it), the log is read too; without one, the
 * file is opened as immutable, since a read-only open of a WAL database would otherwise create
 * empty -wal and -shm files beside it.
 */
const openReadOnly = (path: string): Db => {
  const immutable = !existsSync(`${path}-wal`)
  const uri = `file:${path.split("/").map(encodeURIComponent).join("/")}?immutable=1`
  if (typeof (globalThis as any).Bun !== "undefined") {
    const { Database } = builtin("bun:sqlite")
    // SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
    return immutable ? new Database(uri, 0x01 | 0x40) : new Database(path, { readonly: true })
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
    return new sqlite.DatabaseSync(immutable ? uri : path, { readOnly: true })
  } finally {
    process.emitWarning = emitWarning
  }
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

/** A JSON column's object; one that does not parse is kept as `{}` with the id (the reader then notes what it misses). */
const dataOf = (v: unknown): Record<string, unknown> => {
  try {
    const o: unknown = JSON.parse(text(v))
    return o !== null && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>) : {}
  } catch {
    return {}
  }
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
    const parts = db.prepare("SELECT id, data FROM part WHERE message_id = ? ORDER BY id")
    const messages = db
      .prepare("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id")
      .all(id)
      .map((m) => ({
        info: { ...dataOf(m["data"]), id: text(m["id"]), sessionID: id },
        parts: parts.all(m["id"]).map((p) => ({ ...dataOf(p["data"]), id: text(p["id"]), sessionID: id, messageID: text(m["id"]) }))
      }))
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
          const file = join(dir, `${id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`)
          writeFileSync(file, doc, { mode: 0o600 })
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
