import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { gzipSync } from "node:zlib"
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

test("a gzip archive, UTF-16 text or binary data is one failed run saying what it is, not one bad line per line", () => {
  const log = `${JSON.stringify({ type: "user", text: "hello" })}\n`.repeat(50)
  const files = {
    gz: [join(dir, "trace.jsonl.gz"), gzipSync(log)],
    utf16: [join(dir, "utf16.jsonl"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(log, "utf16le")])],
    binary: [join(dir, "blob.jsonl"), Buffer.from([0x7b, 0x00, 0x01, 0x02, 0x7d])],
    text: [join(dir, "bom.jsonl"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(log)])]
  } as const
  for (const [path, bytes] of Object.values(files)) writeFileSync(path, bytes)
  const runs = Effect.runSync(auditRuns(Object.values(files).map(([path]) => path), undefined))
  const errors = runs.map((r) => (r._tag === "unreadable" ? r.error : null))
  expect(errors[0]).toContain(`${files.gz[0]}: not JSON Lines text but a gzip archive (unpack it first: zcat`)
  expect(errors[1]).toContain(`${files.utf16[0]}: not JSON Lines text but UTF-16 text`)
  expect(errors[2]).toBe(`${files.binary[0]}: not JSON Lines text but binary data (it holds NUL bytes)`)
  // A UTF-8 byte order mark is text: read as ever.
  expect(runs[3]!._tag).toBe("file")
})
