import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { beginStep } from "./begin-step.js"
import { stageFixture } from "./stage-fixture.js"

describe("beginStep", () => {
  test("a replay's recorded user turn is stored and becomes the current turn", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ userTurnsBefore: (step) => (step === 0 ? ["it still fails"] : []) })
        expect(yield* beginStep(f.s, ctx)).toBe("go")
        const stored = yield* f.s.store.messages("s")
        expect(stored.map((m) => (m.role === "user" ? m.text : ""))).toEqual(["it still fails"])
        expect(ctx.state.currentUserId).toBe(stored[0]!.id)
      })
    ))

  test("an aborted signal stops the run as cancelled", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ signal: AbortSignal.abort() })
        expect(yield* beginStep(f.s, ctx)).toBe("stop")
        expect(ctx.state.exit).toEqual({ reason: "cancelled", step: 0, error: { tag: "CancelledError", message: "cancelled by the caller (its abort signal)", uiMessage: "cancelled by the caller (its abort signal)" } })
      })
    ))

  test("a replay stops when its recorded steps run out, without an exit", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow: true, maxSteps: 2 })
        expect(yield* beginStep(f.s, ctx)).toBe("go")
        ctx.state = { ...ctx.state, step: 2 }
        expect(yield* beginStep(f.s, ctx)).toBe("stop")
        expect(ctx.state.exit).toBeNull()
      })
    ))
  test("the loop-start rollback check ends a run whose consecutive rollbacks already reach the cap", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: true, maxConsecutiveRollbacks: 3 } }) })
        const ctx = yield* f.context()
        ctx.rollback.restore(2)
        expect(yield* beginStep(f.s, ctx)).toBe("go")
        ctx.rollback.restore(3)
        expect(yield* beginStep(f.s, ctx)).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("rollback_cap")
      })
    ))
})
