import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { applyCrossStep, runCrossStep } from "./cross-step.js"
import { reply, stageFixture } from "./stage-fixture.js"

const failing = (i: number) => ({ type: "tool" as const, callId: `c${i}`, name: "bash", input: { command: `make ${i}` }, state: "completed" as const, exitCode: 1 })

describe("runCrossStep / applyCrossStep", () => {
  test("the breaker's degrade rung files an incident and stores its reminder after the recovery", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "build it" })
        const ctx = yield* f.context()
        const r = reply([failing(1), failing(2), failing(3)], { parentId: "s:u0", finish: "tool-calls" })
        yield* f.s.store.append("s", r)
        const after = yield* runCrossStep(f.s, ctx, r, { type: "next-step" })
        expect(ctx.state.incidents.map((i) => `${i.detector}:${i.action}`)).toContain("breaker:degrade")
        expect((yield* f.s.store.messages("s")).length).toBe(2)
        expect(yield* applyCrossStep(f.s, ctx, after)).toBe("go")
        expect((yield* f.s.store.messages("s")).at(-1)).toMatchObject({ role: "user", synthetic: "breaker-degrade" })
      })
    ))

  test("an exit asked for by a detector stops the run", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        const exit = { reason: "text_loop" as const, error: { tag: "TextLoopError", message: "Text loop detected" } }
        expect(yield* applyCrossStep(f.s, ctx, { incidents: [], crop: null, reminders: [], exit, pause: null })).toBe("stop")
        expect(ctx.state.exit).toEqual({ reason: "text_loop", step: 0, error: exit.error })
      })
    ))

  test("a stall pause stops the run with try_best_paused and publishes the detection", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        expect(yield* applyCrossStep(f.s, ctx, { incidents: [], crop: null, reminders: [], exit: null, pause: { kind: "no-file-change" } })).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("try_best_paused")
        expect(f.events.at(-1)).toMatchObject({ type: "session.try_best.detected", incident: { kind: "no-file-change" } })
      })
    ))
})
