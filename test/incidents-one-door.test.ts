/**
 * Incidents have one door: every incident event a run publishes is in its report, and the report
 * holds nothing that was not published. Judged end to end over HTTP on runs that stop on a doom
 * loop, on the breaker's paused tools, on a gate's refusal, on a cut loop and on a cancel.
 */
import { repeatLoop, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, ToolGate, type LoopguardConfig, type LoopguardEvent, type RunResult, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect, Layer } from "effect"
import { it } from "./effect-test.js"
import { type Harness, harness } from "./harness.js"
import { contentText, recordingShell, wireMessages } from "./loops-e2e/wire.js"

const key = (i: { readonly step: number; readonly detector: string; readonly action: string }) => `${i.step}:${i.detector}:${i.action}`

const publishedIncidents = (events: ReadonlyArray<LoopguardEvent>): Array<string> =>
  events.flatMap((e) => (e.type === "incident" ? [key(e)] : [])).sort()

const reportIncidents = (r: RunResult): Array<string> => r.report.incidents.map(key).sort()

const runTurn = (h: Harness, options: { readonly signal?: AbortSignal } = {}) =>
  h.run(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go", ...options }) }))

const failingShell = (): ToolDefinition => ({
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: `${String(input["command"])}: command failed`, exitCode: 1 })
})

describe("the report's incidents are the run's incident events", () => {
  it.live("a run that stops on a doom loop has the doom-loop incident in its report", () => Effect.gen(function* () {
    const shell = recordingShell()
    const triple: ScriptedResponse = { type: "stream", chunks: [1, 2, 3].map((i) => ({ toolCall: { id: `call_d${i}`, name: "bash", arguments: '{"command":"ls"}' } })) }
    const h = yield* harness([triple, textStream("never")], { tools: [shell.tool] })
    const r = yield* Effect.promise(() => runTurn(h))
    expect(r.report.reason).toBe("doom_loop")
    expect(r.report.incidents).toContainEqual({ step: 0, detector: "doom-loop", action: "fail-non-interactive" })
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
  }), 30_000)

  it.live("the breaker's paused tools: the tools-paused incident is in the report", () => Effect.gen(function* () {
    const script = [
      toolCallStream("bash", { command: "make alpha" }, { id: "c1" }),
      toolCallStream("bash", { command: "cargo beta" }, { id: "c2" }),
      toolCallStream("bash", { command: "npm gamma" }, { id: "c3" }),
      toolCallStream("bash", { command: "pytest delta" }, { id: "c4" }),
      textStream("Stopping here: the build tools are failing.")
    ]
    const h = yield* harness(script, { tools: [failingShell()] })
    const r = yield* Effect.promise(() => runTurn(h))
    expect(r.report.incidents.map((i) => i.detector)).toContain("tools-paused")
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
    // The paused call never ran: the report says so, it does not list it as run.
    expect(r.report.completed).toContainEqual(expect.stringMatching(/^not run `pytest delta` \(not run: tool execution is paused/))
    expect(r.report.completed.join("\n")).not.toContain("pytest delta` (did not finish)")
  }), 30_000)

  it.live("a cut repetition, then an answer: every published incident is reported", () => Effect.gen(function* () {
    const h = yield* harness([repeatLoop("the parser fails on line three again ", 60), textStream("Fixed the parser.")])
    const r = yield* Effect.promise(() => runTurn(h))
    expect(r.report.reason).toBe("final")
    expect(r.report.incidents.map((i) => i.detector)).toContain("text-repeat")
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
  }), 30_000)

  it.live("a cancelled run: the cancel incident, reported and published once", () => Effect.gen(function* () {
    const stalled: ScriptedResponse = { type: "stream", chunks: [{ text: "Looking" }, { text: " more" }], stallAfterChunks: 1, stallMs: 60_000 }
    const h = yield* harness([stalled])
    const controller = new AbortController()
    const waiting = runTurn(h, { signal: controller.signal })
    while ((h.server.requests[0]?.chunksWritten ?? 0) < 1) yield* Effect.sleep("25 millis")
    controller.abort("SIGINT")
    const r = yield* Effect.promise(() => waiting)
    expect(r.report.reason).toBe("cancelled")
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
  }), 30_000)
})

describe("the interpreter's paths: one door whether it acts or only reports", () => {
  const capped = (c: LoopguardConfig): LoopguardConfig => ({ ...c, toolCaps: { maxCallsPerTool: 1, perTool: {} } })
  const twoCalls = () => [
    toolCallStream("bash", { command: "ls a" }, { id: "c1" }),
    toolCallStream("bash", { command: "ls b" }, { id: "c2" }),
    textStream("Done listing.")
  ]

  it.live("enforcing: a call past its tool cap is refused, filed once, and reported", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(twoCalls(), { tools: [shell.tool], config: capped })
    const r = yield* Effect.promise(() => runTurn(h))
    expect(shell.ran).toEqual([{ command: "ls a" }])
    expect(r.report.incidents).toContainEqual({ step: 1, detector: "tool-cap", action: "refused" })
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
  }), 30_000)

  it.live("replaying (shadow): the same call is filed as what would have happened, runs, and is reported", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(twoCalls(), { tools: [shell.tool], config: capped })
    const r = yield* Effect.promise(() => h.run(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go", shadow: true, maxSteps: 3 }) })))
    expect(shell.ran).toEqual([{ command: "ls a" }, { command: "ls b" }])
    expect(r.report.incidents).toContainEqual({ step: 1, detector: "tool-cap", action: "detect" })
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
  }), 30_000)
})

describe("a ToolGate of one's own can refuse one call and let the run go on", () => {
  const noRm = Layer.succeed(
    ToolGate,
    ToolGate.of({
      beforeCall: (_reply, call) =>
        Effect.succeed(
          String((call.input as { command?: unknown }).command ?? "").startsWith("rm ")
            ? { _tag: "refuse", reason: "refused by policy: rm is not allowed here; list or move files instead" }
            : { _tag: "allow" }
        )
    })
  )

  it.live("the refused call never runs, the model reads why, the next call runs, the run ends final", () => Effect.gen(function* () {
    const shell = recordingShell()
    const script = [
      toolCallStream("bash", { command: "rm -rf build" }, { id: "c_rm" }),
      toolCallStream("bash", { command: "ls build" }, { id: "c_ls" }),
      textStream("Listed the build folder instead.")
    ]
    const h = yield* harness(script, { tools: [shell.tool], toolGate: noRm })
    const r = yield* Effect.promise(() => runTurn(h))
    expect(shell.ran).toEqual([{ command: "ls build" }])
    const answer = wireMessages(h.server, 1).find((m) => m.role === "tool" && m.tool_call_id === "c_rm")
    expect(contentText(answer!)).toContain("refused by policy: rm is not allowed here")
    expect(r.report.reason).toBe("final")
    expect(r.report.incidents).toContainEqual({ step: 0, detector: "tool-gate", action: "refused" })
    expect(reportIncidents(r)).toEqual(publishedIncidents(h.events))
    expect(h.server.requests.length).toBe(3)
  }), 30_000)
})
