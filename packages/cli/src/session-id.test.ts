/** One rule for a session id given on the command line; an id an error quotes never breaks its line. */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sessionIdProblem } from "./session-id.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-session-id-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const MAIN = join(import.meta.dir, "main.ts")
const TRACE = join(import.meta.dir, "../../core/src/trace/formats/fixtures/claude-code.jsonl")

const cli = (...args: ReadonlyArray<string>) => {
  const child = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } })
  return { code: child.exitCode, stderr: child.stderr.toString() }
}

test("letters, digits, . _ - (1 to 128) name a session; a slash, dot-dot path, space or anything else does not", () => {
  for (const good of ["run", "chat-20261130-171500-3fa2", "s.1_a-b", "x".repeat(128)]) expect(sessionIdProblem(good)).toBeNull()
  for (const bad of ["../../x", "a/b", "a:b", "a b", "", "x".repeat(129), "a\nb"]) expect(sessionIdProblem(bad)).not.toBeNull()
})

test("run --session and sessions import --as refuse an id outside the rule (exit 2, naming the flag)", () => {
  const run = cli("run", "--session", "../../x", "--prompt", "x", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session-dir", "store")
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('--session "../../x"')
  const imported = cli("sessions", "import", TRACE, "--as", "../../x", "--session-dir", "store")
  expect(imported.code).toBe(2)
  expect(imported.stderr).toContain('--as "../../x"')
}, 60_000)

test("sessions show with an id holding a newline: the error is one line, the newline escaped", () => {
  expect(cli("sessions", "import", TRACE, "--as", "s1", "--session-dir", "store").code).toBe(0)
  const shown = cli("sessions", "show", "a\nb", "--session-dir", "store")
  expect(shown.code).toBe(2)
  const errorLines = shown.stderr.split("\n").filter((l) => l.startsWith("loopguard:") || l.startsWith("b"))
  expect(errorLines).toHaveLength(1)
  expect(errorLines[0]).toContain("no session a\\nb in")
}, 60_000)
