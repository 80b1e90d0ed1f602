import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { admitTool } from "../interpret.js"
import { executeStep, onStepTimeout } from "./execute.js"
import { stageFixture } from "./stage-fixture.js"

const request = { messages: [{ role: "user" as const, text: "goal" }], tools: [] }

describe("executeStep", () => {
  test("a step past loop.stepTimeoutMs is interrupted and answers timeout", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        let interrupted = false
        const f = stageFixture({
          config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 1000 } }),
          process: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true))))
        })
        const ctx = yield* f.context()
        const fiber = yield* Effect.forkChild(executeStep(f.s, ctx, request))
        yield* TestClock.adjust("1001 millis")
        expect(yield* Fiber.join(fiber)).toBe("timeout")
        expect(interrupted).toBe(true)
        expect(f.processed[0]).toMatchObject({ step: 0, sessionId: "s" })
      }).pipe(Effect.provide(TestClock.layer()))
    ))
})

describe("onStepTimeout", () => {
  test("stops with StepTimeoutError and a timeout incident", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 500 } }) })
        const ctx = yield* f.context()
        expect(yield* onStepTimeout(f.s, ctx)).toBe("stop")
        expect(ctx.state.exit).toEqual({ reason: "timeout", step: 0, error: { tag: "StepTimeoutError", message: "step 0 ran past 500 ms" } })
        expect(ctx.state.incidents[0]?.detector).toBe("timeout")
      })
    ))

  test("a replayed timeout moves on to the next step", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow: true })
        expect(yield* onStepTimeout(f.s, ctx)).toBe("next")
        expect(ctx.state.exit?.reason).toBe("timeout")
      })
    ))
})

describe("admitTool", () => {
  test("past toolCaps the call is refused and filed; a replay only reports it", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, toolCaps: { maxCallsPerTool: 1, perTool: {} } }) })
        const ctx = yield* f.context()
        expect(yield* admitTool(f.s, ctx, "bash")).toBeUndefined()
        expect(yield* admitTool(f.s, ctx, "bash")).toContain("bash reached its cap of 1 call")
        expect(ctx.state.incidents).toEqual([{ step: 0, detector: "tool-cap", action: "refused", kind: "fault", detail: { tool: "bash", cap: 1 } }])
        const replay = yield* f.context({ shadow: true })
        yield* admitTool(f.s, replay, "bash")
        expect(yield* admitTool(f.s, replay, "bash")).toBeUndefined()
        expect(replay.state.incidents.map((i) => i.action)).toEqual(["detect"])
      })
    ))
})
