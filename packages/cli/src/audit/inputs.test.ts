import { afterAll, describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expandInputs } from "./inputs.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-inputs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("audit inputs", () => {
  test("a folder stands for its .jsonl/.json/.traj files, subfolders included, sorted; files and - pass as given", () => {
    mkdirSync(join(dir, "2025/09"), { recursive: true })
    for (const f of ["b.jsonl", "a.json", "notes.txt", "2025/09/rollout-1.jsonl", "c.traj"]) writeFileSync(join(dir, f), "{}")
    expect(expandInputs([dir, "-", "x.jsonl"])).toEqual({ files: [join(dir, "2025/09/rollout-1.jsonl"), join(dir, "a.json"), join(dir, "b.jsonl"), join(dir, "c.traj"), "-", "x.jsonl"], folder: true, emptyFolders: [], skipped: [] })
    expect(expandInputs(["missing.jsonl"])).toEqual({ files: ["missing.jsonl"], folder: false, emptyFolders: [], skipped: [] })
  })

  test("in a folder, OpenCode's and Kilo's databases are logs, other databases are not; a database named is taken as given", () => {
    const share = join(dir, "share")
    mkdirSync(join(share, "opencode"), { recursive: true })
    mkdirSync(join(share, "kilo"), { recursive: true })
    for (const f of ["opencode/opencode.db", "opencode/opencode.db-wal", "kilo/kilo.db", "sessions.db"]) writeFileSync(join(share, f), "")
    expect(expandInputs([share]).files).toEqual([join(share, "kilo/kilo.db"), join(share, "opencode/opencode.db")])
    expect(expandInputs([join(share, "sessions.db")]).files).toEqual([join(share, "sessions.db")])
  })

  test("in a folder, a log's metadata file (Claude Code's subagents/agent-<id>.meta.json) is no log; the sub-agent's .jsonl is", () => {
    const session = join(dir, "projects/-repo/9cb6")
    mkdirSync(join(session, "subagents"), { recursive: true })
    for (const f of ["9cb6.jsonl", "9cb6/subagents/agent-a1.jsonl", "9cb6/subagents/agent-a1.meta.json"]) writeFileSync(join(dir, "projects/-repo", f), "{}")
    expect(expandInputs([join(dir, "projects")]).files).toEqual([join(session, "subagents/agent-a1.jsonl"), join(dir, "projects/-repo/9cb6.jsonl")])
  })

  test("links are followed (a link to a log is a log; a link back up is walked once); a pipe or a broken link named as a log is noted, not read", () => {
    const root = join(dir, "linked")
    mkdirSync(join(root, "real"), { recursive: true })
    writeFileSync(join(root, "real/run.jsonl"), "{}")
    symlinkSync(join(root, "real/run.jsonl"), join(root, "run-link.jsonl"))
    symlinkSync(root, join(root, "real/up"))
    symlinkSync(join(root, "gone.jsonl-target"), join(root, "gone.jsonl"))
    execFileSync("mkfifo", [join(root, "pipe.jsonl")])
    writeFileSync(join(root, "other.jsonl"), "{}")
    symlinkSync(join(root, "other.jsonl"), join(root, "real/latest.jsonl"))
    writeFileSync(join(dir, "outside.jsonl"), "{}")
    symlinkSync(join(dir, "outside.jsonl"), join(root, "ext.jsonl"))
    const inputs = expandInputs([root])
    // A link to a log elsewhere is that log; run-link.jsonl and real/latest.jsonl are links to logs found under their own names: each log is audited once.
    expect(inputs.files).toEqual([join(root, "ext.jsonl"), join(root, "other.jsonl"), join(root, "real/run.jsonl")])
    expect(inputs.skipped).toEqual([
      { path: join(root, "gone.jsonl"), why: "a link to nothing" },
      { path: join(root, "pipe.jsonl"), why: "not a regular file (a pipe, a socket or a device)" }
    ])
    expect(inputs.emptyFolders).toEqual([])
  })

  test("a folder with no log among the arguments is named (the audit notes it), not dropped in silence", () => {
    mkdirSync(join(dir, "empty/sub"), { recursive: true })
    writeFileSync(join(dir, "empty/sub/notes.txt"), "not a log")
    writeFileSync(join(dir, "one.jsonl"), "{}")
    expect(expandInputs([join(dir, "one.jsonl"), join(dir, "empty")])).toEqual({ files: [join(dir, "one.jsonl")], folder: true, emptyFolders: [join(dir, "empty")], skipped: [] })
  })
})
