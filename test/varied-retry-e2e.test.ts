/**
 * Loops on other harnesses end to end: the real RunLoop over the real AI SDK provider against
 * the scripted HTTP server. A password hunt runs real commands in a temporary directory (an
 * OpenHands-style `execute_bash` that prints its exit status instead of returning one), counted
 * from outside by a marker file; so does flailing (a new failing command every step); polling a
 * job whose log moves on must not trip anything.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinTools } from "../packages/cli/src/tools.js"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
import { actions, turns } from "./loops-e2e/run.js"

const EXECUTE_BASH_SPEC = {
  name: "execute_bash",
  description: "Run a shell command (OpenHands style: the exit status is printed after the output).",
  inputSchema: { type: "object", properties: { command: { type: "string" }, is_input: { type: "string" } }, required: ["command"] }
}

/** A workspace with a password check, and an OpenHands-style shell over the real one. */
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), "lg-varied-"))
  const dir = join(root, "work")
  const marker = join(root, "marker")
  mkdirSync(dir)
  writeFileSync(join(dir, "check.sh"), 'echo "skipping: flag.txt  incorrect password"\n[ "$1" = opensesame ] || exit 82\n')
  const bash = builtinTools(dir, 10_000).find((t) => t.spec.name === "bash")!
  const executeBash = {
    spec: EXECUTE_BASH_SPEC,
    run: async (input: Record<string, unknown>, signal: AbortSignal) => {
      appendFileSync(marker, "ran\n")
      const r = await bash.run({ command: input["command"] }, signal)
      const code = r.exitCode ?? (r.state === "error" ? 1 : 0)
      // Printed, not returned: the detectors must read it from the output.
      return { state: "completed" as const, output: `${r.output}\n[The command completed with exit code ${code}.]` }
    }
  }
  return {
    tools: [executeBash],
    executions: () => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean).length : 0),
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }
}

/** The workspace, removed when the scope closes. */
const scopedWorkspace = Effect.acquireRelease(Effect.sync(workspace), (ws) => Effect.sync(ws.cleanup))

const GUESSES = ["admin", "123456", "letmein", "secret", "qwerty", "hunter2", "dragon", "monkey", "trustno1", "welcome", "changeme", "toor", "root", "pass"]
const call = (input: Record<string, unknown>, i: number): ScriptedResponse => toolCallStream("execute_bash", input, { id: `call_${i}` })

describe("varied retry over HTTP", () => {
  it.live("a password hunt (one command, a new password each time, the same refusal) is noted at the 4th try and stopped", () => Effect.gen(function* () {
    const ws = yield* scopedWorkspace
    // A look at the script every third step keeps the refusals from coming back to back.
    const pick = (_: unknown, i: number) => (i % 3 === 2 ? call({ command: `head -n ${1 + (i % 2)} check.sh`, is_input: "false" }, i) : call({ command: `sh check.sh ${GUESSES[i % GUESSES.length]}`, is_input: "false" }, i))
    // The breaker would hand back first (every try fails); this test is about the loop ladder.
    const h = yield* harness(pick, { tools: ws.tools, config: (c) => ({ ...c, breaker: { ...c.breaker, enabled: false } }) })
    const { results } = yield* h.provide(turns("Extract flag.txt from secret.zip."))
    const r = results[0]!
    expect(actions(r, "varied-retry")[0]).toBe("note")
    const note = r.incidents.find((i) => i.detector === "varied-retry")!
    expect(note.detail).toMatchObject({ skeleton: "sh check.sh <a>", count: 4 })
    // The run is stopped by the ladder (whichever loop detector reaches the top first).
    expect(r.report.reason).toBe("idle")
    expect(ws.executions()).toBeLessThanOrEqual(14)
    expect(ws.executions()).toBe(h.server.requests.length)
  }), 60_000)

  it.live("polling a running job whose log moves on (empty is_input, 12 times) raises no loop incident", () => Effect.gen(function* () {
    yield* scopedWorkspace
    let epoch = 0
    const poll = {
      spec: EXECUTE_BASH_SPEC,
      run: async (input: Record<string, unknown>) =>
        input["command"] === ""
          ? { state: "completed" as const, output: `epoch ${++epoch}/20 loss=${(2 / (epoch + 1)).toFixed(4)}` }
          : { state: "completed" as const, output: "[1] 4242\n[The command completed with exit code 0.]" }
    }
    const pick = (_: unknown, i: number): ScriptedResponse =>
      i === 0 ? call({ command: "nohup python3 train.py > job.log 2>&1 &", is_input: "false" }, i) : i <= 12 ? call({ command: "", is_input: "true" }, i) : textStream("Training finished.")
    const h = yield* harness(pick, { tools: [poll] })
    const { results } = yield* h.provide(turns("Train the model and report the loss."))
    const r = results[0]!
    expect(epoch).toBe(12)
    expect(r.report.reason).toBe("final")
    expect(r.incidents.filter((i) => i.kind === "loop")).toEqual([])
  }), 60_000)

  /** One flailing run; its server and workspace are gone when it returns. */
  const flail = (breaker: boolean) =>
    Effect.scoped(
      Effect.gen(function* () {
        const ws = yield* scopedWorkspace
        const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
        const pick = (_: unknown, i: number) => call({ command: `sh -c 'echo "${words[i % words.length]} went wrong" >&2; exit 3'`, is_input: "false" }, i)
        const h = yield* harness(pick, { tools: ws.tools, config: (c) => ({ ...c, breaker: { ...c.breaker, enabled: breaker } }) })
        const { results } = yield* h.provide(turns("Start the app."))
        return { r: results[0]!, executions: ws.executions() }
      })
    )

  it.live("flailing (a new command every step, each failing another way) with the breaker off: noted at the 8th, stopped at the 13th", () => Effect.gen(function* () {
    const { r, executions } = yield* flail(false)
    expect(actions(r, "failure-streak")).toEqual(["note", "remind", "stop"])
    expect(r.incidents.find((i) => i.detector === "failure-streak")?.step).toBe(7)
    expect(r.report.reason).toBe("idle")
    expect(executions).toBe(13)
  }), 60_000)

  it.live("flailing with the breaker on: the breaker's ladder ends the run, the failure streak never stops it", () => Effect.gen(function* () {
    const { r } = yield* flail(true)
    // The printed exit codes reach the breaker too: it degrades, then hands the work back.
    expect(actions(r, "breaker")).toEqual(["degrade", "hand-back"])
    expect(r.report.reason).toBe("circuit_open")
    expect(actions(r, "failure-streak")).not.toContain("stop")
  }), 60_000)
})
