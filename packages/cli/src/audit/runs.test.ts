import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeOpenCodeDb, OPENCODE_DB_SESSION } from "../../../effect/src/audit/opencode-db.fixture.js"
import { auditRuns } from "./runs.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-runs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("a log is a run; a database is a run per session; an empty opencode.db, or a database under a --format for text logs, is a failed run that says why", () => {
  const log = join(dir, "run.jsonl")
  writeFileSync(log, "{}\n")
  mkdirSync(join(dir, "db"))
  const { path, writer } = makeOpenCodeDb(join(dir, "db"))
  writer.close()
  mkdirSync(join(dir, "empty"))
  const empty = join(dir, "empty", "opencode.db")
  writeFileSync(empty, "")
  const runs = Effect.runSync(auditRuns([log, path, empty], undefined))
  expect(runs.map((r) => [r._tag, r.name])).toEqual([
    ["file", log],
    ["stored", `${path}#${OPENCODE_DB_SESSION}`],
    ["unreadable", empty]
  ])
  expect(runs[2]).toMatchObject({ error: `${empty}: named like OpenCode's database, but not a SQLite database (empty, or not a regular file)` })
  const forced = Effect.runSync(auditRuns([path], "pi"))
  expect(forced).toMatchObject([{ _tag: "unreadable", name: path }])
  expect(forced[0]!._tag === "unreadable" ? forced[0]!.error : "").toContain("a SQLite database, which --format pi cannot read")
  expect(Effect.runSync(auditRuns([path], "opencode")).map((r) => r._tag)).toEqual(["stored"])
})
