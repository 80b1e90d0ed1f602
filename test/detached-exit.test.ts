/**
 * A process the shell tool detaches from its group (`setsid cmd &`) is the user's, not the run's
 * (docs/security.md): loopguard does not track it, and it must not keep `loopguard run` alive
 * after the report either. Judged from outside: the CLI exits on its own; the detached process is
 * then ended here, by its pid.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { expect } from "bun:test"
import { Effect } from "effect"
import { resolve } from "node:path"
import { it } from "./effect-test.js"
import { killOnClose } from "./scoped-resources.js"
import { cliEnv, scratch } from "./cli-fixture.js"
import { execFileSync } from "node:child_process"
import { TAG } from "./process-table.js"

/** Pids of live processes whose command line holds `marker`. */
const pidsWith = (marker: string): Array<number> =>
  execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(marker) && !l.includes("ps -eo") && !/^\s*\d+\s+Z/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]))

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-detached-")

it.live("`setsid sleep … &` in a tool call: the call ends, the report is printed and the CLI exits 0 on its own", () => Effect.gen(function* () {
  const marker = `${TAG}771`
  // The detached sleep is ours to end (this test started it), by its pid.
  yield* Effect.addFinalizer(() => Effect.sync(() => pidsWith(`sleep ${marker}`).forEach((pid) => process.kill(pid, "SIGKILL"))))
  const server = yield* Effect.promise(() => serve([toolCallStream("bash", { command: `setsid sleep ${marker} & sleep 0.5` }, { id: "c1" }), textStream("Started it.")]))
  const child = yield* killOnClose(Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "start it", "--cwd", workdir()], {
    cwd: ROOT,
    env: cliEnv(),
    stdout: "pipe",
    stderr: "pipe"
  }))
  let exited = false
  void child.exited.then(() => (exited = true))
  const out = new Response(child.stdout).text()
  const deadline = Date.now() + 45_000
  while (!exited && Date.now() < deadline) yield* Effect.sleep(100)
  expect(exited).toBe(true)
  expect(yield* Effect.promise(() => child.exited)).toBe(0)
  expect(yield* Effect.promise(() => out)).toContain("Started it.")
}), 90_000)
