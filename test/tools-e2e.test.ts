/**
 * `loopguard run` against a hostile model, judged from outside: what the server saw in the
 * next request, the exit status, and the process table. A FIFO, `yes`, background jobs and a
 * symlink out of the folder must neither hang, crash nor leak, and the run must end with a report.
 */
import { startScriptedServer, textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { afterAll, describe, expect, test } from "bun:test"
import { cliEnv } from "./cli-fixture.js"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { leftoversOf, TAG } from "./process-table.js"

const root = resolve(import.meta.dir, "..")
const dirs: Array<string> = []
const servers: Array<ScriptedServer> = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "lg-tools-e2e-"))
  dirs.push(d)
  return d
}

const cleanEnv = () => cliEnv()

const runCli = async (args: ReadonlyArray<string>, env: Record<string, string> = cleanEnv()) => {
  const child = spawn(process.execPath, ["run", "packages/cli/src/main.ts", ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)))
  return { code, stdout, stderr }
}

/** The tool results the model was sent in a request, as text. */
const toolResultsIn = (body: any): string =>
  JSON.stringify((body.messages as Array<{ role: string }>).filter((m) => m.role === "tool"))

describe("loopguard run's tools against a hostile model", () => {
  test("FIFO, symlink escape, `yes`, a timed-out `sleep; echo` and `cmd &`: the run ends with a report and nothing is left", async () => {
    const base = tempDir()
    const cwd = join(base, "work")
    mkdirSync(cwd)
    writeFileSync(join(base, "outside.txt"), "outside secret")
    symlinkSync(join(base, "outside.txt"), join(cwd, "escape.txt"))
    execFileSync("mkfifo", [join(cwd, "pipe")])
    const config = join(base, "lg.json")
    // Three failures in a row trip the breaker; its cooldown would hold back the later calls this test is about.
    writeFileSync(config, JSON.stringify({ loop: { toolTimeoutMs: 3_000 }, tools: { maxOutputChars: 2_000 }, doomLoop: { enabled: false }, breaker: { cooldownSteps: 0 } }))
    const server = await startScriptedServer([
      toolCallStream("read_file", { path: "pipe" }, { id: "c1" }),
      toolCallStream("read_file", { path: "escape.txt" }, { id: "c2" }),
      toolCallStream("bash", { command: "yes" }, { id: "c3" }),
      toolCallStream("bash", { command: `sleep ${TAG}401; echo never` }, { id: "c4" }),
      toolCallStream("bash", { command: `sleep ${TAG}402 & echo started` }, { id: "c5" }),
      textStream("Done.")
    ])
    servers.push(server)
    const run = await runCli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", cwd, "--config", config])

    expect(run.stderr).not.toMatch(/RangeError|at .*\.ts:\d+/)
    expect(run.stdout).toContain("── done: finished with an answer")
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(6)
    expect(toolResultsIn(server.requests[1]!.body)).toContain("is a FIFO (named pipe): refused")
    expect(toolResultsIn(server.requests[2]!.body)).toContain("path escape.txt is outside the working directory")
    expect(toolResultsIn(server.requests[2]!.body)).not.toContain("outside secret")
    const yes = toolResultsIn(server.requests[3]!.body)
    expect(yes).toMatch(/characters of output dropped/)
    expect(yes.length).toBeLessThan(10_000)
    expect(toolResultsIn(server.requests[4]!.body)).toContain("timed out after 3000 ms")
    expect(toolResultsIn(server.requests[5]!.body)).toContain("started")
    expect(await leftoversOf(`${TAG}40`)).toEqual([])
  }, 60_000)

  test("--approve-commands on a real terminal: a yes runs the command, a no does not; without a terminal nothing runs", async () => {
    const cwd = tempDir()
    const server = await startScriptedServer([
      toolCallStream("bash", { command: "touch approved" }, { id: "a" }),
      toolCallStream("bash", { command: "touch denied" }, { id: "b" }),
      textStream("Done.")
    ])
    servers.push(server)
    const line = [process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", cwd, "--approve-commands"]
    // `script` gives the CLI a pseudo-terminal, so it asks; each question is answered when it shows.
    const shellQuoted = line.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    const child = spawn("script", ["-qfec", shellQuoted, "/dev/null"], { cwd: root, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let answered = 0
    child.stdout.on("data", (d) => {
      out += d
      for (const asked = out.split("Run it? [y/N]").length - 1; answered < asked; answered++) child.stdin.write(answered === 0 ? "y\r" : "n\r")
    })
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)))
    expect(answered).toBe(2)
    expect(code).toBe(0)
    expect(existsSync(join(cwd, "approved"))).toBe(true)
    expect(existsSync(join(cwd, "denied"))).toBe(false)
    expect(toolResultsIn(server.requests[2]!.body)).toContain("the user did not approve this command; it was not run")

    const headlessDir = tempDir()
    const headless = await startScriptedServer([toolCallStream("bash", { command: "touch ran" }, { id: "c" }), textStream("Done.")])
    servers.push(headless)
    const run = await runCli(["run", "--base-url", headless.baseURL, "--model", "m", "--prompt", "go", "--cwd", headlessDir, "--approve-commands"])
    expect(run.code).toBe(0)
    expect(existsSync(join(headlessDir, "ran"))).toBe(false)
    expect(toolResultsIn(headless.requests[1]!.body)).toContain("no terminal to ask on, so the command was not run")
  }, 60_000)

  test("a session dir that cannot be written is a clear error, exit 2, no stack trace", async () => {
    const base = tempDir()
    writeFileSync(join(base, "file"), "")
    const run = await runCli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "go", "--session-dir", join(base, "file", "sessions")])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`--session-dir ${join(base, "file", "sessions")}: cannot write there (a part of the path is a file, not a folder)`)
    expect(run.stderr).not.toMatch(/\n\s+at /)
    const readOnly = await runCli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "go", "--session-dir", "/proc/loopguard-sessions"])
    expect(readOnly.code).toBe(2)
    expect(readOnly.stderr).toContain("--session-dir /proc/loopguard-sessions: cannot write there")
    expect(readOnly.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)

  // The session database is SQLite (docs/store.md); a disk that fills up mid-run is in test/store-faults.test.ts.
  test("a session database that cannot be opened is one line naming it, exit 2, no stack trace, no request", async () => {
    const sessionDir = tempDir()
    mkdirSync(join(sessionDir, "sessions.db"))
    const server = await startScriptedServer([textStream("Done.")])
    servers.push(server)
    const run = await runCli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--session-dir", sessionDir])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^loopguard: could not open \S*sessions\.db: [^\n]*\n$/)
    expect(server.requests).toHaveLength(0)
  }, 60_000)

  test("a --cwd that is not a folder is a usage error, exit 2", async () => {
    const run = await runCli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "go", "--cwd", "/nonexistent-lg-dir"])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("--cwd /nonexistent-lg-dir: not a folder")
  }, 60_000)

  test("a bad verification regex and an unknown LOOPGUARD_* variable are errors naming them, exit 2", async () => {
    const base = tempDir()
    const config = join(base, "lg.json")
    writeFileSync(config, `{"tryBest": {"verificationPatterns": ["npm (test"]}}`)
    const args = ["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "go", "--config", config]
    const run = await runCli(args, { ...cleanEnv(), LOOPGUARD_TOOL_TIMEOUT: "5" })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`config field tryBest.verificationPatterns[0] (from ${config}:1): not a valid regular expression`)
    expect(run.stderr).toContain("environment variable LOOPGUARD_TOOL_TIMEOUT is not a loopguard setting")
    expect(run.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)
})
