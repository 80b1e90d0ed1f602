/**
 * `loopguard audit` on the database OpenCode (and Kilo) keep their sessions in, as a user runs it:
 * the database named, or the folder it is in, one run per session; a database that is not OpenCode's
 * is one failed run naming it, and the others are still audited. `sessions import DB#SESSION` stores
 * one of its sessions.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { makeOpenCodeDb, OPENCODE_DB_SESSION } from "../packages/effect/src/audit/opencode-db.fixture.js"

// Each test starts the CLI as a subprocess: a loaded machine can take seconds to boot it.
setDefaultTimeout(60_000)

const ROOT = resolve(import.meta.dir, "..")
const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-opencode-db-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const audit = async (...args: ReadonlyArray<string>) => loopguard("audit", ...args)

const loopguard = async (...args: ReadonlyArray<string>) => {
  const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code, objects: stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { file: string; steps?: number; error?: string }) }
}

describe("audit of OpenCode's database", () => {
  test("named: each session is a run named DB#SESSION; the folder it is in stands for it, other databases there are not logs", async () => {
    const share = join(dir, "share")
    mkdirSync(join(share, "opencode"), { recursive: true })
    const { path, writer } = makeOpenCodeDb(join(share, "opencode"))
    writer.close()
    // A store's own database beside it is not an agent's log.
    new Database(join(share, "sessions.db"), { create: true }).close()
    const named = await audit("--json", path)
    expect({ code: named.code, stderr: named.stderr }).toEqual({ code: 0, stderr: "" })
    expect(named.objects.map((o) => [o.file, o.steps])).toEqual([[`${path}#${OPENCODE_DB_SESSION}`, 5]])
    const folder = await audit("--json", share)
    expect(folder.code).toBe(0)
    expect(folder.objects.map((o) => o.file)).toEqual([`${path}#${OPENCODE_DB_SESSION}`])
    // Read only: nothing was made beside it.
    expect(readdirSync(join(share, "opencode"))).toEqual(["opencode.db"])
  })

  test("a database that is not OpenCode's is a failed run naming it (exit 1); the logs beside it are still audited", async () => {
    const other = join(dir, "other.db")
    const db = new Database(other, { create: true })
    db.exec("CREATE TABLE notes (id TEXT)")
    db.close()
    const log = join(dir, "run.jsonl")
    writeFileSync(log, `${JSON.stringify({ type: "user", text: "hello" })}\n`)
    const r = await audit("--json", other, log)
    expect(r.code).toBe(1)
    expect(r.objects.map((o) => o.file)).toEqual([other, log])
    expect(r.objects[0]!.error).toContain(`${other}: cannot read OpenCode's database: a SQLite database, but not OpenCode's`)
    expect(r.stderr).not.toContain("    at ")
  })

  test("--html: one session is one page; into a folder, the page is named after the session", async () => {
    const { path, writer } = makeOpenCodeDb(mkdtempSync(join(dir, "html-")))
    writer.close()
    const page = join(dir, "run.html")
    const one = await audit(path, "--html", page)
    expect(one.code).toBe(0)
    expect(one.stdout).toContain(`${path}#${OPENCODE_DB_SESSION}`)
    expect(readFileSync(page, "utf8")).toContain(OPENCODE_DB_SESSION)
    const out = join(dir, "pages") + "/"
    const into = await audit(path, "--html", out)
    expect(into.code).toBe(0)
    expect(readdirSync(out).sort()).toEqual(["index.html", `${OPENCODE_DB_SESSION}.html`])
  })

  test("sessions import: DB#SESSION, or the database when it holds one session; several, and it asks which", async () => {
    const { path, writer } = makeOpenCodeDb(mkdtempSync(join(dir, "import-")))
    writer.close()
    const store = join(dir, "store")
    const one = await loopguard("sessions", "import", path, "--session-dir", store)
    expect({ code: one.code, stderr: one.stderr }).toEqual({ code: 0, stderr: "" })
    expect(one.stdout).toContain(`as session ${OPENCODE_DB_SESSION}`)
    const named = await loopguard("sessions", "import", `${path}#${OPENCODE_DB_SESSION}`, "--as", "again", "--session-dir", store)
    expect(named.code).toBe(0)
    const list = await loopguard("sessions", "list", "--session-dir", store)
    expect(list.stdout).toContain(OPENCODE_DB_SESSION)
    expect(list.stdout).toContain("again")
    const gone = await loopguard("sessions", "import", `${path}#ses_gone`, "--session-dir", store)
    expect({ code: gone.code, stderr: gone.stderr.trim() }).toEqual({ code: 2, stderr: `loopguard: ${path}: cannot read OpenCode's database: no session ses_gone in it` })
    // A second session in the database: which one is meant must be said.
    const db = new Database(path)
    const columns = (db.prepare("PRAGMA table_info(session)").all() as Array<{ name: string }>).map((c) => c.name)
    db.exec(`INSERT INTO session (${columns.join(", ")}) SELECT ${columns.map((c) => (c === "id" ? "'ses#second'" : c)).join(", ")} FROM session`)
    db.close()
    const two = await loopguard("sessions", "import", path, "--session-dir", store)
    expect(two.code).toBe(2)
    expect(two.stderr).toContain(`OpenCode's database holds 2 sessions: name one as DB#SESSION (${path}#`)
    expect(two.stderr).not.toContain("    at ")
    // A session id with a # in it is named as audit names its run: found (it holds no message of its own).
    const hashed = await loopguard("sessions", "import", `${path}#ses#second`, "--as", "second", "--session-dir", store)
    expect({ code: hashed.code, stderr: hashed.stderr.trim() }).toEqual({ code: 2, stderr: `loopguard: ${path}#ses#second: no user or assistant lines to import` })
  })
})
