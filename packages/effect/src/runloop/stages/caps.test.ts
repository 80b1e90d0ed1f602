import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { checkCaps } from "./caps.js"
import { stageFixture } from "./stage-fixture.js"

describe("checkCaps", () => {
  test("hard cap: steps spent stops with max_steps, filed under step-cap with the usage", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 } }) })
        const ctx = yield* f.context()
        expect((yield* checkCaps(f.s, ctx)).flow).toBe("go")
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 2 } }
        expect((yield* checkCaps(f.s, ctx)).flow).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("max_steps")
        expect(ctx.state.incidents).toEqual([{ step: 0, detector: "step-cap", action: "stop", kind: "fault", detail: { reason: "max_steps", used: "the step cap (2 of 2 steps used)" } }])
      })
    ))

  test("summary mode: the first spent check asks for the summary request", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, capMode: "summary", tokenBudget: 100 } }) })
        const ctx = yield* f.context()
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, tokens: { input: 90, output: 20, total: 110 } } }
        const { flow, cap } = yield* checkCaps(f.s, ctx)
        expect(flow).toBe("go")
        expect(cap.summaryReason).toBe("budget_tokens")
        expect(ctx.state.exit).toBeNull()
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, summaryDone: true } }
        expect((yield* checkCaps(f.s, ctx)).flow).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("budget_tokens")
        expect(ctx.state.incidents[0]).toMatchObject({ detector: "budget", detail: { used: "the token budget (110 of 100 tokens used)" } })
      })
    ))

  test("soft mode: the last allowed step is marked, not stopped", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, capMode: "soft", maxSteps: 3 } }) })
        const ctx = yield* f.context()
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 2 } }
        const { flow, cap } = yield* checkCaps(f.s, ctx)
        expect(flow).toBe("go")
        expect(cap.decision).toEqual({ type: "last-step" })
      })
    ))
})
