import { judged, type StepAction } from "@loopguard/core/step"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { act, admitTool, interpret } from "./interpret.js"
import { reply, stageFixture } from "./stages/stage-fixture.js"

const enforcingAndShadow = (run: (shadow: boolean) => Effect.Effect<void, unknown>) =>
  Effect.runPromise(Effect.gen(function* () {
    yield* run(false)
    yield* run(true)
  }))

describe("interpret", () => {
  test("an enforced stop ends the list and keeps the first exit; a replay records it and goes on", () =>
    enforcingAndShadow((shadow) =>
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow })
        const actions: ReadonlyArray<StepAction> = [{ _tag: "Stop", reason: "doom_loop" }, { _tag: "Stop", reason: "final" }, { _tag: "FileIncident", incident: { step: 0, detector: "after", action: "x" } }]
        expect(yield* act(f.s, ctx, actions)).toBe(shadow ? "go" : "stop")
        expect(ctx.state.exit).toEqual({ reason: "doom_loop", step: 0 })
        expect(ctx.state.incidents.map((i) => i.detector)).toEqual(shadow ? ["after"] : [])
      })
    ))

  test("reminders are counted always and stored only when enforcing; exclusions and take-backs only when enforcing", () =>
    enforcingAndShadow((shadow) =>
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "go" })
        yield* f.s.store.append("s", reply([{ type: "text", text: "a" }], { id: "s:a1" }))
        const ctx = yield* f.context({ shadow })
        const before = ctx.state.meter.stepsUsed
        const flow = yield* act(f.s, ctx, [
          { _tag: "Remind", kind: "think-only", text: "say something" },
          { _tag: "TakeBack", messageId: "s:a1", reason: "rollback", count: "rollback" }
        ])
        const stored = yield* f.s.store.messages("s")
        expect(flow).toBe(shadow ? "go" : "next")
        expect(ctx.state.retries).toEqual(shadow ? { "think-only": 1 } : { "think-only": 1, rollback: 1 })
        expect(stored.filter((m) => m.role === "user" && m.synthetic === "think-only")).toHaveLength(shadow ? 0 : 1)
        const taken = stored.find((m) => m.id === "s:a1")
        expect(taken?.role === "assistant" ? taken.excluded : "missing").toBe(shadow ? undefined : "rollback")
        expect(ctx.state.meter.stepsUsed).toBe(shadow ? before : before - 1)
      })
    ))

  test("the breaker's cooldown and model switch only when enforcing; the switch is filed", () =>
    enforcingAndShadow((shadow) =>
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow })
        yield* act(f.s, ctx, [{ _tag: "CoolDownTools", steps: 2 }, { _tag: "SwitchModel", incident: { step: 0, detector: "breaker", action: "model-switched" } }])
        expect(ctx.state.toolCooldown).toBe(shadow ? 0 : 2)
        expect(ctx.state.rerouted).toBe(!shadow)
        expect(f.events.filter((e) => e.type === "incident")).toHaveLength(shadow ? 0 : 1)
      })
    ))

  test("every filed incident is published once and reported once (one door); a repeat in the same episode is not filed again", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        const incident = { step: 0, detector: "repeated-action", action: "note" }
        yield* interpret(f.s, ctx, judged(ctx.state, [{ _tag: "FileIncident", incident }, { _tag: "FileIncident", incident }]))
        const published = f.events.flatMap((e) => (e.type === "incident" ? [`${e.detector}:${e.action}`] : []))
        expect(published).toEqual(ctx.state.incidents.map((i) => `${i.detector}:${i.action}`))
        expect(published).toEqual(["repeated-action:note"])
      })
    ))

  test("a tool past its cap: refused when enforcing, filed as detect and run when replaying", () =>
    enforcingAndShadow((shadow) =>
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, toolCaps: { maxCallsPerTool: 1, perTool: {} } }) })
        const ctx = yield* f.context({ shadow })
        expect(yield* admitTool(f.s, ctx, "bash")).toBeUndefined()
        const second = yield* admitTool(f.s, ctx, "bash")
        if (shadow) expect(second).toBeUndefined()
        else expect(second).toContain("reached its cap")
        expect(ctx.state.incidents.map((i) => i.action)).toEqual([shadow ? "detect" : "refused"])
      })
    ))
})
