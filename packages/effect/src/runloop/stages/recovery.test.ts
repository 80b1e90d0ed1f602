import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { applyDecision, decideStep } from "./recovery.js"
import { reply, stageFixture } from "./stage-fixture.js"

const goal = { role: "user" as const, id: "s:u0", text: "fix it" }

describe("decideStep", () => {
  test("a think-only reply is classified, published, and counted in the recovery state", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", goal)
        const ctx = yield* f.context()
        const d = yield* decideStep(f.s, ctx, reply([{ type: "reasoning", text: "hmm" }], { parentId: "s:u0" }), { type: "continue" })
        expect(d.classification.class).toBe("think-only")
        expect(d.action.type).toBe("remind")
        expect(ctx.state.recovery.emptyRetries).toBe(1)
        expect(f.events.find((e) => e.type === "step.classified")).toMatchObject({ class: "think-only", step: 0 })
      })
    ))
})

describe("applyDecision", () => {
  test("remind: the reminder is stored as a synthetic user message and the reply excluded when asked", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", goal)
        const ctx = yield* f.context()
        const r = reply([{ type: "text", text: "<function_calls>ls</function_calls>" }], { parentId: "s:u0", finish: "tool-calls" })
        yield* f.s.store.append("s", r)
        const d = yield* decideStep(f.s, ctx, r, { type: "continue" })
        expect(yield* applyDecision(f.s, ctx, r, d)).toBe("go")
        const stored = yield* f.s.store.messages("s")
        expect(stored[1]).toMatchObject({ excluded: "text-tool-call" })
        expect(stored[2]).toMatchObject({ role: "user", synthetic: "text-tool-call" })
        expect(ctx.state.incidents[0]).toMatchObject({ detector: "text-tool-call", action: "text-tool-call" })
      })
    ))

  test("exit: a content filter stops with its incident", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", goal)
        const ctx = yield* f.context()
        const r = reply([{ type: "text", text: "partial" }], { parentId: "s:u0", finish: "content-filter" })
        expect(yield* applyDecision(f.s, ctx, r, yield* decideStep(f.s, ctx, r, { type: "continue" }))).toBe("stop")
        expect(ctx.state.exit?.reason).toBe("content_filter")
        expect(ctx.state.incidents[0]?.action).toBe("exit:content_filter")
      })
    ))

  test("final: a failing completion check feeds back instead of finishing", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ checkOk: false, config: (c) => ({ ...c, completionCheck: { ...c.completionCheck, command: "bun test" } }) })
        yield* f.s.store.append("s", goal)
        const ctx = yield* f.context()
        const r = reply([{ type: "text", text: "Done." }], { parentId: "s:u0" })
        expect(yield* applyDecision(f.s, ctx, r, yield* decideStep(f.s, ctx, r, { type: "continue" }))).toBe("go")
        expect(ctx.state.exit).toBeNull()
        expect((yield* f.s.store.messages("s")).at(-1)).toMatchObject({ synthetic: "completion-check" })
      })
    ))

  test("final: accepted by the gates, the run ends; in shadow mode no gate runs", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ verdict: { met: false, understood: true, reason: "no" }, config: (c) => ({ ...c, goalGate: { ...c.goalGate, enabled: true } }) })
        yield* f.s.store.append("s", goal)
        const shadow = yield* f.context({ shadow: true })
        const r = reply([{ type: "text", text: "Done." }], { parentId: "s:u0" })
        expect(yield* applyDecision(f.s, shadow, r, yield* decideStep(f.s, shadow, r, { type: "continue" }))).toBe("go")
        expect(shadow.state.exit?.reason).toBe("final")
        expect(shadow.state.incidents).toEqual([])
        const enforcing = yield* f.context()
        expect(yield* applyDecision(f.s, enforcing, r, yield* decideStep(f.s, enforcing, r, { type: "continue" }))).toBe("go")
        expect(enforcing.state.incidents[0]).toMatchObject({ detector: "goal-gate", action: "not-met" })
      })
    ))
})
