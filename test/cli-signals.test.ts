/**
 * `loopguard run` under SIGINT / SIGTERM, as a user would see it: a real subprocess against the
 * scripted server; judged by the exit status, the printed report, what the server saw and the
 * process table.
 */
import { toolCallStream, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"
import { cliEnv } from "./cli-fixture.js"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dir, "..")
const stalled: ScriptedResponse = { type: "stream", chunks: [{ text: "Looking into it" }, { text: " more" }], finish: "stop", stallAfterChunks: 1, stallMs: 60_000 }

const cleanEnv = () => cliEnv()

const startRun = (server: ScriptedServer, extra: ReadonlyArray<string> = [], env: Record<string, string> = {}) => {
  const cwd = mkdtempSync(join(tmpdir(), "lg-signal-"))
  const child = spawn(
    process.execPath,
    ["packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "scripted-model", "--prompt", "Fix the build.", "--cwd", cwd, ...extra],
    { cwd: ROOT, env: { ...cleanEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] }
  )
  const out = { stdout: "", stderr: "" }
  child.stdout.on("data", (d) => (out.stdout += d))
  child.stderr.on("data", (d) => (out.stderr += d))
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on("close", (code, signal) => done({ code, signal })))
  return { child, out, closed }
}

const until = async (what: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error("condition not met in time")
    await Bun.sleep(25)
  }
}

describe("loopguard run and signals", () => {
  for (const [signal, code, cause] of [["SIGINT", 130, "cancelled by the user (Ctrl-C)"], ["SIGTERM", 143, "stopped by a shutdown request (SIGTERM)"]] as const) {
    it.live(`${signal} during a reply: the request is closed, the report says cancelled, exit ${code}`, () => Effect.gen(function* () {
      const server = yield* scriptedServer([stalled])
      const run = startRun(server)
      yield* Effect.promise(() => until(() => (server.requests[0]?.chunksWritten ?? 0) >= 1))
      run.child.kill(signal)
      const ended = yield* Effect.promise(() => run.closed)
      expect(ended.code).toBe(code)
      expect(run.out.stdout).toContain("── stopped: cancelled ·")
      expect(run.out.stdout).toContain("CancelledError")
      // The report says which of the causes it was: a person, a shutdown.
      expect(run.out.stdout).toContain(cause)
      expect(run.out.stderr).toContain(`${signal}: cancelling the run`)
      expect(run.out.stderr).not.toMatch(/\bat .*\.ts:\d+/)
      yield* Effect.promise(() => server.requests[0]!.done)
      expect(server.requests[0]!.closedEarly).toBe(true)
      expect(server.requests.length).toBe(1)
    }), 30_000)
  }

  it.live("SIGINT while a shell tool runs: the command is gone from the process table, --json prints the report", () => Effect.gen(function* () {
    const marker = `${40_000 + Math.floor(Math.random() * 9_999)}`
    const server = yield* scriptedServer([toolCallStream("bash", { command: `sleep ${marker}` }), stalled])
    const run = startRun(server, ["--json"])
    yield* Effect.promise(() => until(() => spawnSync("pgrep", ["-f", `sleep ${marker}`]).status === 0))
    run.child.kill("SIGINT")
    const ended = yield* Effect.promise(() => run.closed)
    expect(ended.code).toBe(130)
    const report = run.out.stdout.split("\n").filter((l) => l.startsWith('{"type":"report"')).map((l) => JSON.parse(l).report)
    expect(report).toHaveLength(1)
    expect(report[0]).toMatchObject({ reason: "cancelled", status: "aborted" })
    yield* Effect.promise(() => until(() => spawnSync("pgrep", ["-f", `sleep ${marker}`]).status !== 0, 5_000))
    expect(server.requests.length).toBe(1)
  }), 30_000)

  it.live("a second signal quits at once", () => Effect.gen(function* () {
    const server = yield* scriptedServer([stalled])
    const run = startRun(server)
    yield* Effect.promise(() => until(() => (server.requests[0]?.chunksWritten ?? 0) >= 1))
    run.child.kill("SIGTERM")
    run.child.kill("SIGTERM")
    const ended = yield* Effect.promise(() => run.closed)
    expect(ended.code).toBe(143)
  }), 30_000)

  it.live("LOOPGUARD_LOOP_MAX_WALL_MS: a hanging reply ends time_limit with the report, exit 1, the request closed", () => Effect.gen(function* () {
    const server = yield* scriptedServer([stalled])
    const run = startRun(server, [], { LOOPGUARD_LOOP_MAX_WALL_MS: "700" })
    const ended = yield* Effect.promise(() => run.closed)
    expect(ended.code).toBe(1)
    expect(run.out.stdout).toContain("── stopped: the run's time limit was reached (time_limit)")
    expect(run.out.stdout).toContain("TimeLimitError")
    yield* Effect.promise(() => server.requests[0]!.done)
    expect(server.requests[0]!.closedEarly).toBe(true)
  }), 30_000)
})
