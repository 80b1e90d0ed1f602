/**
 * One session of a real OpenCode 1.18.33 run against the scripted server (a failing shell command, a
 * write, an edit, an edit that does not apply, an answer; paths trimmed), put back into a database
 * with OpenCode's own `session`, `message` and `part` tables: what `loopguard audit` reads.
 */
import { Database } from "bun:sqlite"
import { readFileSync } from "node:fs"
import { join } from "node:path"

interface Fixture {
  readonly schema: Record<"session" | "message" | "part", string>
  readonly session: ReadonlyArray<Record<string, unknown>>
  readonly message: ReadonlyArray<Record<string, unknown>>
  readonly part: ReadonlyArray<Record<string, unknown>>
}

const FIXTURE: Fixture = JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "opencode-db.json"), "utf8"))
export const OPENCODE_DB_SESSION = "ses_dc8463094ffeEFCeYukX2S2hlQ"

const insert = (db: Database, table: string, rows: ReadonlyArray<Record<string, unknown>>): void => {
  for (const r of rows) {
    const keys = Object.keys(r)
    db.prepare(`INSERT INTO ${table} (${keys.join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`).run(...(Object.values(r) as Array<string | number | null>))
  }
}

/** The fixture as a database at `dir/opencode.db`; `wal`: left in WAL mode with the rows still in the log, the writer open. */
export const makeOpenCodeDb = (dir: string, wal = false): { readonly path: string; readonly writer: Database } => {
  const path = join(dir, "opencode.db")
  const db = new Database(path, { create: true })
  if (wal) {
    db.exec("PRAGMA journal_mode = WAL")
    db.exec("PRAGMA wal_autocheckpoint = 0")
  }
  for (const t of ["session", "message", "part"] as const) db.exec(FIXTURE.schema[t])
  insert(db, "session", FIXTURE.session)
  insert(db, "message", FIXTURE.message)
  insert(db, "part", FIXTURE.part)
  return { path, writer: db }
}

