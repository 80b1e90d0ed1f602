/**
 * The RunLoop over a real provider and a server that sends no usage, as many local servers do
 * (they ignore `stream_options.include_usage`): each step is billed an estimate, so a token budget
 * still trips. A server that sends usage is counted exactly.
 */
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { ConfigService, DEFAULT_CONFIG, Events, loopguardLayer, Permission, RunLoop, SessionStore, Tools, type LoopguardEvent, type ToolDefinition } from "@loopguard/effect"
import { layerScripted, textStream, toolCallStream, type ScriptedServerOptions, type StreamResponse } from "./testing.js"

const bash: ToolDefinition = {
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async () => ({ state: "completed", output: "a.txt", exitCode: 0 })
}

/** A tool call, then an answer; the run ends after two steps unless a budget stops it. */
const SCRIPT = (usage?: StreamResponse["usage"]): ReadonlyArray<StreamResponse> => [
  toolCallStream("bash", { command: "ls" }, usage !== undefined ? { usage } : {}),
  textStream("There is one file, a.txt.", usage !== undefined ? { usage } : {})
]

/** One RunLoop run over the scripted server, with `tokenBudget`; its result and the step.finished events. */
const runOver = (script: ReadonlyArray<StreamResponse>, server: ScriptedServerOptions, tokenBudget: number | null) =>
  Effect.gen(function* () {
    const events: Array<LoopguardEvent> = []
    const config = Layer.succeed(ConfigService, { ...structuredClone(DEFAULT_CONFIG), loop: { ...DEFAULT_CONFIG.loop, tokenBudget } })
    const deps = Layer.mergeAll(
      layerScripted(script, server),
      Layer.effect(Tools, Tools.make([bash])).pipe(Layer.provide(config)),
      config,
      Layer.succeed(Events, Events.make((event) => void events.push(event))),
      Permission.layerAllow,
      SessionStore.layerMemory
    )
    const run = Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "What files are there?" })
    })
    const result = yield* Effect.provide(run, loopguardLayer(deps))
    const steps = events.flatMap((e) => (e.type === "step.finished" && e.tokens !== undefined ? [e.tokens] : []))
    return { report: result.report, steps }
  })

describe("a server that sends no usage", () => {
  test("each step is billed an estimate, marked estimated, and a small token budget stops the run", async () => {
    const { report, steps } = await Effect.runPromise(runOver(SCRIPT(), { omitUsage: true }, 10))
    expect([report.reason, report.stepsUsed]).toEqual(["budget_tokens", 1])
    expect(report.tokens.estimated).toBe(true)
    // The prompt (system, messages, tools as sent) is far over 10 tokens; the output is the call's arguments.
    expect(report.tokens.input).toBeGreaterThan(10)
    expect(report.tokens.output).toBeGreaterThan(0)
    expect(steps).toEqual([{ ...report.tokens, estimated: true }])
  }, 30_000)

  test("without a budget the run ends as it would, every step estimated", async () => {
    const { report, steps } = await Effect.runPromise(runOver(SCRIPT(), { omitUsage: true }, null))
    expect([report.reason, report.stepsUsed, report.tokens.estimated]).toEqual(["final", 2, true])
    expect(steps.map((t) => t.estimated)).toEqual([true, true])
    expect(steps.every((t) => t.input > 0 && t.output > 0)).toBe(true)
  }, 30_000)
})

describe("a server that sends usage", () => {
  test("its counts stand exactly, nothing estimated", async () => {
    const { report, steps } = await Effect.runPromise(runOver(SCRIPT({ prompt_tokens: 7, completion_tokens: 3 }), { omitUsage: true }, 1000))
    expect([report.reason, report.stepsUsed]).toEqual(["final", 2])
    expect(report.tokens).toEqual({ input: 14, output: 6, total: 20 })
    expect(steps).toEqual([
      { input: 7, output: 3, total: 10, estimated: false },
      { input: 7, output: 3, total: 10, estimated: false }
    ])
  }, 30_000)

  test("a count of zero is the server's word too: only a missing count is estimated", async () => {
    const { report } = await Effect.runPromise(runOver(SCRIPT({ prompt_tokens: 0, completion_tokens: 0 }), {}, 10))
    expect([report.reason, report.tokens]).toEqual(["final", { input: 0, output: 0, total: 0 }])
  }, 30_000)
})
