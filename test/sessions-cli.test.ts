/**
 * `loopguard sessions` as a user runs it: spawned processes on a SQLite folder, judged by exit
 * status, stdout and stderr. A session written by `run` exports as trace v1 that `audit` reads;
 * bad input is one line and exit 2.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"

const ROOT = resolve(import.meta.dir, "..")
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOOPGUARD_")))

const cli = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ["run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => done({ code, stdout, stderr }))
  })

describe("loopguard sessions", () => {
  it.live("a run kept in --session-dir is listed, shown, exported as trace v1 that audit reads, and imported back", () => Effect.gen(function* () {
    const dir = mkdtempSync(join(tmpdir(), "lg-sessions-"))
    mkdirSync(join(dir, "work"))
    const server = yield* scriptedServer([toolCallStream("bash", { command: "echo hi" }, { id: "c1" }), textStream("Said hi.")])
    const run = yield* Effect.promise(() => cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", "say hi", "--cwd", join(dir, "work"), "--session-dir", dir, "--session", "greet"]))
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(join(dir, "sessions.db"))
    // Resumed without --prompt: the last reply is already the answer, so nothing is asked.
    const idle = yield* scriptedServer([])
    const resumed = yield* Effect.promise(() => cli(["run", "--base-url", idle.baseURL, "--model", "m", "--cwd", join(dir, "work"), "--session-dir", dir, "--session", "greet", "--json"]))
    expect(resumed.code).toBe(0)
    expect(idle.requests).toHaveLength(0)
    expect(resumed.stdout).toContain('"reason":"final"')
    const missing = yield* Effect.promise(() => cli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--cwd", join(dir, "work"), "--session-dir", dir, "--session", "nope"]))
    expect([missing.code, missing.stderr.trim()]).toEqual([2, "loopguard: --prompt is required: there is no stored session nope to resume"])

    const list = yield* Effect.promise(() => cli(["sessions", "list", "--session-dir", dir, "--json"]))
    expect(list.code).toBe(0)
    expect(JSON.parse(list.stdout.trim())).toMatchObject({ id: "greet", messages: 3, steps: 2, writer: null })

    const show = yield* Effect.promise(() => cli(["sessions", "show", "greet", "--session-dir", dir]))
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('tool bash {"command":"echo hi"} → completed exit 0: hi')

    const out = join(dir, "greet.jsonl")
    expect((yield* Effect.promise(() => cli(["sessions", "export", "greet", "--session-dir", dir, "--out", out]))).code).toBe(0)
    const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(lines.map((l) => l.type)).toEqual(["session", "user", "assistant", "tool-result", "assistant"])
    const audit = yield* Effect.promise(() => cli(["audit", out, "--json"]))
    expect(audit.code).toBe(0)
    expect(JSON.parse(audit.stdout.trim())).toMatchObject({ file: out, steps: 2 })

    const other = mkdtempSync(join(tmpdir(), "lg-sessions-"))
    const imported = yield* Effect.promise(() => cli(["sessions", "import", out, "--session-dir", other]))
    expect([imported.code, imported.stdout.trim()]).toEqual([0, "imported 3 messages as session greet"])
    const again = yield* Effect.promise(() => cli(["sessions", "export", "greet", "--session-dir", other]))
    expect(again.stdout).toBe(readFileSync(out, "utf8"))
  }), 120_000)

  test("bad input is one line on stderr and exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-sessions-"))
    const bad = join(dir, "bad.jsonl")
    writeFileSync(bad, '{"type":"user","text":"ok"}\n{"type":"assistant","finish":"done"}\n')
    const cases: ReadonlyArray<[ReadonlyArray<string>, RegExp]> = [
      [["sessions", "list"], /^loopguard: name the store: --session-dir DIR \(SQLite\) or --store postgres/],
      [["sessions", "list", "--session-dir", dir, "--store", "postgres://h/db"], /^loopguard: --session-dir and --store name two stores/],
      [["sessions", "list", "--store", "mysql://user:hunter2@h/db"], /^loopguard: --store: expected a postgres:\/\/… URL, got mysql:\/\/h\/db/],
      [["sessions", "show", "nope", "--session-dir", dir], /^loopguard: no session nope in /],
      [["sessions", "import", bad, "--session-dir", dir], /^loopguard: .*bad\.jsonl:2: /],
      [["sessions", "import", join(dir, "missing.jsonl"), "--session-dir", dir], /^loopguard: .*missing\.jsonl: cannot read/]
    ]
    for (const [args, message] of cases) {
      const r = await cli(args)
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2])
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toContain("hunter2")
    }
  }, 120_000)
})

describe("loopguard sessions delete / prune", () => {
  const trace = '{"type":"user","text":"hi"}\n{"type":"assistant","text":"Hello.","finish":"stop"}\n'
  /** A folder holding sessions "old" (last written 40 days ago), "new" and "held" (a live writer's), each with a proxy request record. */
  const storeWithThree = async (): Promise<string> => {
    const dir = mkdtempSync(join(tmpdir(), "lg-prune-"))
    const file = join(dir, "t.jsonl")
    writeFileSync(file, trace)
    for (const id of ["old", "new", "held"]) expect((await cli(["sessions", "import", file, "--as", id, "--session-dir", dir])).code).toBe(0)
    const db = new Database(join(dir, "sessions.db"))
    db.run("UPDATE loopguard_sessions SET updated_at = ? WHERE id = 'old'", [Date.now() - 40 * 86_400_000])
    db.run("UPDATE loopguard_sessions SET owner = 'elsewhere', owner_host = 'box', owner_pid = 42, lease_until = ? WHERE id = 'held'", [Date.now() + 600_000])
    db.run("CREATE TABLE IF NOT EXISTS loopguard_proxy_requests (session_id TEXT NOT NULL, at BIGINT NOT NULL, record TEXT NOT NULL)")
    for (const id of ["old", "new", "held"]) db.run("INSERT INTO loopguard_proxy_requests VALUES (?, ?, '{}')", [id, Date.now()])
    db.close()
    return dir
  }
  const left = (dir: string) => {
    const db = new Database(join(dir, "sessions.db"), { readonly: true })
    const ids = (q: string) => (db.query(q).all() as Array<{ id: string }>).map((r) => r.id).sort()
    const out = {
      sessions: ids("SELECT id FROM loopguard_sessions"),
      messages: ids("SELECT DISTINCT session_id AS id FROM loopguard_messages"),
      requests: ids("SELECT DISTINCT session_id AS id FROM loopguard_proxy_requests")
    }
    db.close()
    return out
  }

  test("prune --dry-run lists what is older; prune deletes it, messages and request records too", async () => {
    const dir = await storeWithThree()
    const dry = await cli(["sessions", "prune", "--older-than", "30d", "--dry-run", "--session-dir", dir])
    expect([dry.code, dry.stdout.trim().split("\n").length]).toEqual([0, 1])
    expect(dry.stdout).toMatch(/^would delete session old \(2 messages, last written \d{4}-/)
    expect(left(dir).sessions).toEqual(["held", "new", "old"])
    const pruned = await cli(["sessions", "prune", "--older-than", "30d", "--session-dir", dir])
    expect([pruned.code, pruned.stdout.trim(), pruned.stderr]).toEqual([0, "deleted session old (2 messages)", ""])
    expect(left(dir)).toEqual({ sessions: ["held", "new"], messages: ["held", "new"], requests: ["held", "new"] })
    const again = await cli(["sessions", "prune", "--older-than", "30d", "--session-dir", dir])
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("no session in")])
  }, 60_000)

  test("delete: the sessions named go; one a live writer holds stays (exit 1); an id the store lacks is named (exit 2), the others deleted all the same", async () => {
    const dir = await storeWithThree()
    const held = await cli(["sessions", "delete", "held", "new", "--session-dir", dir])
    expect(held.code).toBe(1)
    expect(held.stdout.trim()).toBe("deleted session new (2 messages)")
    expect(held.stderr.trim()).toBe("session held is being written by box:42: not deleted")
    const missing = await cli(["sessions", "delete", "old", "nope", "--session-dir", dir])
    expect([missing.code, missing.stdout.trim(), missing.stderr.trim()]).toEqual([2, "deleted session old (2 messages)", `loopguard: no session nope in ${dir}`])
    expect(left(dir)).toEqual({ sessions: ["held"], messages: ["held"], requests: ["held"] })
  }, 60_000)

  test("a bad age or no id: one line naming it, exit 2, nothing deleted", async () => {
    const dir = await storeWithThree()
    const bad = await cli(["sessions", "prune", "--older-than", "30 days", "--session-dir", dir])
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'loopguard: --older-than "30 days": give a whole number and a unit, m, h, d or w (for example 30d, 12h, 90m, 2w)'])
    const none = await cli(["sessions", "delete", "--session-dir", dir])
    expect(none.code).toBe(2)
    expect(none.stderr.trim().split("\n")).toHaveLength(1)
    expect(left(dir).sessions).toEqual(["held", "new", "old"])
  }, 60_000)

  test("a mistyped --session-dir: list, show and prune say there is no such folder (exit 2) and make none", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "lg-sessions-missing-")), "typo")
    for (const args of [["list"], ["show", "s1"], ["prune", "--older-than", "30d"]]) {
      const r = await cli(["sessions", ...args, "--session-dir", missing])
      expect([r.code, r.stderr.trim()]).toEqual([2, `loopguard: --session-dir ${missing}: no such folder (no session was stored there)`])
    }
    expect(existsSync(missing)).toBe(false)
  }, 60_000)
})
