/**
 * `loopguard sessions import` as a user runs it: an id that cannot name a session is refused
 * before anything is written. Judged from outside: exit status, stderr, and what `sessions list`
 * finds afterwards in the SQLite folder. (All or nothing on a disk that fills up half-way:
 * test/store-faults.test.ts.)
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const TIMEOUT = 60_000
const { serve, workdir } = scratch("lg-import-")

const cli = async (args: ReadonlyArray<string>) => {
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, env: cliEnv(), stdout: "pipe", stderr: "pipe" })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err }
}

/** A trace exported from a real run: a user turn and two replies. */
const exportedTrace = async (dir: string): Promise<string> => {
  const server = await serve([textStream("first answer"), textStream("second answer")])
  const store = join(dir, "src")
  for (const prompt of ["one", "two"]) {
    const r = await cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", prompt, "--cwd", dir, "--session-dir", store, "--session", "orig"])
    expect(r.code).toBe(0)
  }
  const exported = await cli(["sessions", "export", "orig", "--session-dir", store])
  expect(exported.code).toBe(0)
  return exported.out
}

describe("sessions import", () => {
  test("an id with control characters, spaces or 200 characters is refused, naming the flag", async () => {
    const dir = workdir()
    const file = join(dir, "t.jsonl")
    writeFileSync(file, await exportedTrace(dir))
    const target = join(dir, "dst")
    for (const id of ["bad\u001b]0;x\u0007id", "two words", "x".repeat(200)]) {
      const r = await cli(["sessions", "import", file, "--session-dir", target, "--as", id])
      expect(r.code).toBe(2)
      // A long id is quoted by its beginning only (the problem says how long it is).
      expect(r.err).toMatch(/^loopguard: --as ".*"…?: (holds spaces or control characters \(letters, digits, \. _ - only\)|is 200 characters long \(at most 128\)); give one with --as ID\n$/)
    }
    // An empty value is refused where every text flag's is, before the file is read.
    const empty = await cli(["sessions", "import", file, "--session-dir", target, "--as", ""])
    expect([empty.code, empty.err]).toEqual([2, "loopguard sessions import: --as: empty value; see loopguard sessions import --help\n"])
    const ok = await cli(["sessions", "import", file, "--session-dir", target, "--as", "fine-id"])
    expect(ok.code).toBe(0)
    expect((await cli(["sessions", "list", "--session-dir", target])).out).toContain("fine-id")
  }, TIMEOUT)
})
