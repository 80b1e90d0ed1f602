/**
 * OpenCode's database of sessions, read as `loopguard audit` reads it: one session of a real run
 * (OpenCode 1.18.33 against the scripted server: a failing shell command, a write, an edit, an edit
 * that does not apply, an answer; paths trimmed) put back into a database with OpenCode's own
 * `session`, `message` and `part` tables.
 */
import { readTraceText } from "@loopguard/core/trace"
import { Database } from "bun:sqlite"
import { afterEach, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { auditOpenCodeDb, isSqliteFile, openCodeDbExport, openCodeDbSessions } from "./opencode-db.js"
import { makeOpenCodeDb as makeDb, OPENCODE_DB_SESSION as SESSION } from "./opencode-db.fixture.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const folder = (): string => {
  const d = mkdtempSync(join(tmpdir(), "loopguard-opencode-db-"))
  dirs.push(d)
  return d
}

describe("OpenCode's database of sessions", () => {
  test("each session is rebuilt as its export document and read as an OpenCode log", () => {
    const { path, writer } = makeDb(folder())
    writer.close()
    expect(isSqliteFile(path)).toBe(true)
    expect(Effect.runSync(openCodeDbSessions(path))).toEqual([{ id: SESSION, title: "Scripted title", parentId: null }])
    const doc = Effect.runSync(openCodeDbExport(path, SESSION))
    const parsed = JSON.parse(doc)
    expect(parsed.info).toMatchObject({ id: SESSION, directory: "/home/dev/notes", version: "1.18.33" })
    expect(parsed.messages).toHaveLength(6)
    expect(parsed.messages[0].info).toMatchObject({ id: "msg_237b9cfea001s3yTFJnNsG00zN", sessionID: SESSION, role: "user" })
    expect(parsed.messages[1].parts[0]).toEqual({ type: "step-start", id: "prt_237b9d99a001r3mLKWcqaHltM2", sessionID: SESSION, messageID: "msg_237b9d4d0001ZilHq3xXezUKiE" })
    const r = readTraceText(doc, "opencode.db")
    expect(r.format).toBe("opencode")
    expect(r.notes).toEqual([])
    expect(r.session).toMatchObject({ id: SESSION, model: "scripted-model", agent: "build" })
    const steps = r.lines.filter((l) => l.type === "assistant")
    expect(steps.map((s) => (s.type === "assistant" ? s.toolCalls.map((c) => c.name) : []))).toEqual([["bash"], ["write"], ["edit"], ["edit"], []])
    const results = r.lines.flatMap((l) => (l.type === "tool-result" ? [[l.id, l.exitCode, l.error, l.path ?? null]] : []))
    expect(results).toEqual([
      ["call_a", 2, false, null],
      ["call_b", undefined, false, null],
      ["call_c", undefined, false, "/home/dev/notes/notes.txt"],
      ["call_d", undefined, true, null]
    ])
  })

  test("audited one run per session, named after the database and the session", async () => {
    const { path, writer } = makeDb(folder())
    writer.close()
    const spools = () => readdirSync(tmpdir()).filter((f) => f.startsWith("loopguard-audit-opencode-"))
    const spooledBefore = spools()
    const results = await Effect.runPromise(auditOpenCodeDb(path))
    expect(results).toMatchObject([{ _tag: "audited", file: `${path}#${SESSION}`, format: "opencode", steps: 5, notes: [] }])
  }, 60_000)

  test("read while OpenCode holds it: what is still in the write-ahead log is read; nothing is written or created", () => {
    const dir = folder()
    const { path, writer } = makeDb(dir, true)
    try {
      expect(existsSync(`${path}-wal`)).toBe(true)
      const before = readFileSync(path)
      const files = readdirSync(dir).sort()
      expect(Effect.runSync(openCodeDbSessions(path)).map((s) => s.id)).toEqual([SESSION])
      expect(JSON.parse(Effect.runSync(openCodeDbExport(path, SESSION))).messages).toHaveLength(6)
      expect(readFileSync(path).equals(before)).toBe(true)
      expect(readdirSync(dir).sort()).toEqual(files)
    } finally {
      writer.exec("PRAGMA wal_checkpoint(TRUNCATE)")
      writer.close()
    }
    // Closed, its log checkpointed and removed (as SQLite does when the last connection closes):
    // read as it is, with no -wal or -shm made beside it.
    for (const f of ["-wal", "-shm"]) rmSync(`${path}${f}`, { force: true })
    expect(readdirSync(dir)).toEqual(["opencode.db"])
    expect(Effect.runSync(openCodeDbSessions(path))).toHaveLength(1)
    expect(readdirSync(dir)).toEqual(["opencode.db"])
  })

  test("a database that is not OpenCode's, or no database at all: the reason names the file", () => {
    const dir = folder()
    const other = join(dir, "other.db")
    const db = new Database(other, { create: true })
    db.exec("CREATE TABLE sessions (id TEXT)")
    db.close()
    const failure = (p: string) => {
      const r = Effect.runSync(Effect.result(openCodeDbSessions(p)))
      return r._tag === "Failure" ? r.failure : "read"
    }
    expect(failure(other)).toBe(`${other}: cannot read OpenCode's database: a SQLite database, but not OpenCode's (no session, message, part table)`)
    const text = join(dir, "notes.txt")
    writeFileSync(text, "not a database at all, but long enough to have a header")
    expect(isSqliteFile(text)).toBe(false)
    expect(failure(text)).toStartWith(`${text}: cannot read OpenCode's database: `)
    expect(failure(join(dir, "missing.db"))).toStartWith(`${join(dir, "missing.db")}: cannot read OpenCode's database: `)
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "other.db"])
    const { path, writer } = makeDb(folder())
    writer.close()
    const missing = Effect.runSync(Effect.result(openCodeDbExport(path, "ses_gone")))
    expect(missing._tag === "Failure" ? missing.failure : "").toBe(`${path}: cannot read OpenCode's database: no session ses_gone in it`)
  })

  test("a link is followed to the database and its log; a log without its index is read from a private copy; nothing is made beside either", () => {
    const dir = folder()
    const { path, writer } = makeDb(dir, true)
    try {
      const links = folder()
      symlinkSync(path, join(links, "opencode.db"))
      expect(Effect.runSync(openCodeDbSessions(join(links, "opencode.db"))).map((s) => s.id)).toEqual([SESSION])
      expect(readdirSync(links)).toEqual(["opencode.db"])
      // The database and its log as a backup or a crash leaves them: no -shm beside them.
      const copy = folder()
      copyFileSync(path, join(copy, "opencode.db"))
      copyFileSync(`${path}-wal`, join(copy, "opencode.db-wal"))
      const before = [readFileSync(join(copy, "opencode.db")), readFileSync(join(copy, "opencode.db-wal"))]
      expect(Effect.runSync(openCodeDbSessions(join(copy, "opencode.db"))).map((s) => s.id)).toEqual([SESSION])
      expect(JSON.parse(Effect.runSync(openCodeDbExport(join(copy, "opencode.db"), SESSION))).messages).toHaveLength(6)
      expect(readdirSync(copy).sort()).toEqual(["opencode.db", "opencode.db-wal"])
      expect([readFileSync(join(copy, "opencode.db")), readFileSync(join(copy, "opencode.db-wal"))]).toEqual(before)
    } finally {
      writer.close()
    }
  })

  test("a writer mid-transaction in rollback-journal mode: its rows are not read as if committed", () => {
    const { path, writer } = makeDb(folder())
    try {
      // A one-page cache makes the writer spill its uncommitted pages into the file itself.
      writer.exec("PRAGMA cache_size = 1")
      writer.exec("BEGIN IMMEDIATE")
      const insert = writer.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) SELECT ?, message_id, session_id, time_created, time_updated, ? FROM part LIMIT 1")
      for (let i = 0; i < 200; i++) insert.run(`prt_spill_${i}`, JSON.stringify({ type: "text", text: "x".repeat(4000) }))
      writer.exec("UPDATE session SET id = 'ses_UNCOMMITTED'")
      const read = Effect.runSync(Effect.result(openCodeDbSessions(path)))
      if (read._tag === "Success") expect(read.success.map((s) => s.id)).toEqual([SESSION])
      else expect(read.failure).toMatch(/locked|busy/i)
    } finally {
      writer.exec("ROLLBACK")
      writer.close()
    }
  })

  test("a FIFO is not opened (a read would wait forever); a session id longer than a file name is audited; a row whose data is not JSON is named", async () => {
    const dir = folder()
    const fifo = join(dir, "opencode.db")
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0)
    expect(isSqliteFile(fifo)).toBe(false)
    const { path, writer } = makeDb(folder())
    const long = `ses_${"x".repeat(300)}`
    const columns = (writer.prepare("PRAGMA table_info(session)").all() as Array<{ name: string }>).map((c) => c.name)
    writer.prepare(`INSERT INTO session (${columns.join(", ")}) SELECT ${columns.map((c) => (c === "id" ? "?" : c)).join(", ")} FROM session`).run(long)
    writer.exec(`UPDATE part SET data = '{not json' WHERE id = (SELECT MIN(id) FROM part)`)
    const broken = writer.prepare("SELECT MIN(id) AS id FROM part").get() as { id: string }
    writer.close()
    const spools = () => readdirSync(tmpdir()).filter((f) => f.startsWith("loopguard-audit-opencode-"))
    const spooledBefore = spools()
    const results = await Effect.runPromise(auditOpenCodeDb(path))
    expect(results.map((r) => [r._tag, r.file])).toEqual([
      ["audited", `${path}#${SESSION}`],
      ["audited", `${path}#${long}`]
    ])
    const doc = readTraceText(Effect.runSync(openCodeDbExport(path, SESSION)), "opencode.db")
    expect(JSON.stringify(doc.notes)).toContain(`part ${broken.id}`)
    expect(spools()).toEqual(spooledBefore)
  }, 60_000)
})
