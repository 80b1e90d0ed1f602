import { buildReport } from "@loopguard/core/report"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import type { RunInput, RunResult } from "../run-types.js"
import { stageFixture } from "./stage-fixture.js"
import { offersTask, runTask } from "./subagent.js"

const childResult = (reason: "final" | "max_steps"): RunResult => ({
  report: buildReport({ reason, stepsUsed: 3, tokens: { input: 70, output: 30, total: 100 }, costUsd: 0.01, finalText: "found two files" }),
  incidents: [],
  exit: { reason, step: 3 }
})

describe("runTask", () => {
  test("spawns a child one level deeper with a budget slice; its usage and summary roll up", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 10, tokenBudget: 1000 }, subagents: { ...c.subagents, enabled: true } }) })
        const ctx = yield* f.context({ system: "be brief" })
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 4, tokens: { input: 200, output: 0, total: 200 }, costUsd: 0 } }
        const spawned: Array<RunInput> = []
        const result = yield* runTask(f.s, ctx, (input) => Effect.sync(() => (spawned.push(input), childResult("final"))), { prompt: "find the files" })
        expect(spawned[0]).toMatchObject({ sessionId: "s/task-0-1", prompt: "find the files", role: "subagent", depth: 1, system: "be brief", budget: { maxSteps: 3, tokenBudget: 400, costBudgetUsd: null } })
        expect(result).toEqual({ state: "completed", output: "Sub-agent completed (final) after 3 step(s), 100 tokens.\nfound two files" })
        expect(ctx.state.meter.tokens.total).toBe(300)
        expect(ctx.state.meter.costUsd).toBeCloseTo(0.01)
        expect(ctx.state.meter.stepsUsed).toBe(7)
        expect(ctx.state.subagents).toEqual([{ sessionId: "s/task-0-1", step: 0, depth: 1, status: "completed", reason: "final", stepsUsed: 3, tokens: { input: 70, output: 30, total: 100 }, costUsd: 0.01 }])
        expect(ctx.state.incidents[0]).toMatchObject({ detector: "subagent", action: "final" })
        // Another task in the same step, then one in a later step (or a later run): fresh sessions.
        // (Steps left again: the children's steps count against the parent's cap.)
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 0 } }
        yield* runTask(f.s, ctx, (input) => Effect.sync(() => (spawned.push(input), childResult("final"))), { prompt: "again" })
        ctx.state = { ...ctx.state, step: 6 }
        yield* runTask(f.s, ctx, (input) => Effect.sync(() => (spawned.push(input), childResult("final"))), { prompt: "later" })
        expect(spawned.map((i) => i.sessionId)).toEqual(["s/task-0-1", "s/task-0-2", "s/task-6-1"])
      })
    ))

  test("an aborted child is an error result carrying its account; bad input and no budget never spawn", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 }, subagents: { ...c.subagents, enabled: true } }) })
        const ctx = yield* f.context()
        let spawns = 0
        const spawn = () => Effect.sync(() => (spawns++, childResult("max_steps")))
        expect(yield* runTask(f.s, ctx, spawn, {})).toMatchObject({ state: "error", error: expect.stringContaining("`prompt` is required") })
        const aborted = yield* runTask(f.s, ctx, spawn, { prompt: "go" })
        expect(aborted).toMatchObject({ state: "error", error: expect.stringContaining("Sub-agent aborted (max_steps)") })
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 2 } }
        expect(yield* runTask(f.s, ctx, spawn, { prompt: "go" })).toMatchObject({ state: "error", error: expect.stringContaining("no budget left") })
        expect(spawns).toBe(1)
      })
    ))

  test("the task tool is offered only when on, below the depth cap, and not when replaying", () => {
    const on = stageFixture({ config: (c) => ({ ...c, subagents: { ...c.subagents, enabled: true, maxDepth: 1 } }) }).s
    expect(offersTask(on, { sessionId: "s" })).toBe(true)
    expect(offersTask(on, { sessionId: "s", depth: 1 })).toBe(false)
    expect(offersTask(on, { sessionId: "s", shadow: true })).toBe(false)
    expect(offersTask(stageFixture().s, { sessionId: "s" })).toBe(false)
  })
})

describe("a paused child", () => {
  test("hands its pause up: the parent keeps the child's incident, said to be a sub-agent's", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, subagents: { ...c.subagents, enabled: true } }) })
        const ctx = yield* f.context()
        const paused: RunResult = {
          report: buildReport({ reason: "try_best_paused", stepsUsed: 3 }),
          incidents: [{ step: 2, detector: "bash-retry", action: "pause", detail: { kind: "bash_retry", step: 2, detail: "bash_retry: `make` has failed 3 times", evidence: { command: "make" } } }],
          exit: { reason: "try_best_paused", step: 2 }
        }
        yield* runTask(f.s, ctx, () => Effect.succeed(paused), { prompt: "build" })
        expect(ctx.state.childPause).toEqual({
          detector: "bash-retry",
          detail: { kind: "bash_retry", step: 2, detail: "a sub-agent (s/task-0-1) paused: bash_retry: `make` has failed 3 times", evidence: { command: "make" }, subagent: "s/task-0-1" }
        })
      })
    ))
})
