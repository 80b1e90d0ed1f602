import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { applyOutcome, applyRollback, captureStructured, recordReply } from "./outcome.js"
import { processResult, reply, stageFixture } from "./stage-fixture.js"

const proceed = { decision: "proceed" as const, summaryReason: null }

describe("recordReply", () => {
  test("meters the reply, counts transport retries and marks the summary request made", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        const r = reply([{ type: "text", text: "sum" }])
        expect(recordReply(f.s, ctx, processResult(r, { type: "continue" }, 3), { decision: { type: "summary", reason: "max_steps" }, summaryReason: "max_steps" })).toBe(r)
        expect(ctx.state.meter.stepsUsed).toBe(1)
        expect(ctx.state.meter.tokens.total).toBe(15)
        expect(ctx.state.meter.summaryDone).toBe(true)
        expect(ctx.state.retries).toEqual({ transport: 2 })
        expect(ctx.state.lastReply).toBe(r)
      })
    ))
})

describe("applyOutcome", () => {
  test("a Try-Best pause stops the run, with its event and incident", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        const flow = yield* applyOutcome(f.s, ctx, { type: "paused", incident: { kind: "edit_churn" }, notice: "paused" }, proceed)
        expect(flow).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("try_best_paused")
        expect(ctx.state.incidents[0]).toMatchObject({ detector: "edit-churn", action: "pause" })
        expect(f.events.some((e) => e.type === "session.try_best.detected")).toBe(true)
      })
    ))

  test("a denied doom loop stops; the summary request ends with its cap's reason", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const doom = yield* f.context()
        expect(yield* applyOutcome(f.s, doom, { type: "stop", reason: "denied" }, proceed)).toBe("stop")
        expect(doom.state.exit?.error).toEqual({ tag: "DoomLoopError", message: "denied" })
        const summary = yield* f.context()
        expect(yield* applyOutcome(f.s, summary, { type: "continue" }, { decision: { type: "summary", reason: "budget_tokens" }, summaryReason: "budget_tokens" })).toBe("stop")
        expect(summary.state.exit?.reason).toBe("budget_tokens")
        expect(yield* applyOutcome(f.s, yield* f.context(), { type: "continue" }, proceed)).toBe("go")
      })
    ))
})

describe("applyRollback", () => {
  test("a leaked-markup final answer is popped: excluded, its step given back, next step", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: true } }) })
        const ctx = yield* f.context()
        const r = reply([{ type: "text", text: '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>' }])
        yield* f.s.store.append("s", r)
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 1 } }
        expect(yield* applyRollback(f.s, ctx, r, { type: "continue" })).toBe("next")
        expect(ctx.state.meter.stepsUsed).toBe(0)
        expect(ctx.state.retries["rollback"]).toBe(1)
        expect((yield* f.s.store.messages("s"))[0]).toMatchObject({ excluded: "rollback" })
      })
    ))

  test("a clean reply goes on", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: true } }) })
        expect(yield* applyRollback(f.s, yield* f.context(), reply([{ type: "text", text: "All tests pass." }]), { type: "continue" })).toBe("go")
      })
    ))
})

describe("captureStructured", () => {
  test("a completed structured-output call is the result and ends the run", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ structuredOutput: { schema: { type: "object" } } })
        const call = { type: "tool" as const, callId: "c1", name: "structured_output", input: { answer: 42 }, state: "completed" as const }
        expect(yield* captureStructured(f.s, ctx, reply([{ type: "text", text: "x" }]))).toBe("go")
        expect(yield* captureStructured(f.s, ctx, reply([call]))).toBe("stop")
        expect(ctx.state.structured).toEqual({ value: { answer: 42 } })
        expect(ctx.state.exit?.reason).toBe("final")
      })
    ))
})
