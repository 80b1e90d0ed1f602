import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { stopWith } from "@loopguard/core/step"
import { act } from "./interpret.js"
import { reply, stageFixture } from "./stages/stage-fixture.js"

describe("makeRunContext", () => {
  test("continues a stored session: step count, current user turn, fresh ids", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "goal" })
        yield* f.s.store.append("s", reply([{ type: "text", text: "a" }], { id: "s:a1" }))
        yield* f.s.store.append("s", reply([{ type: "text", text: "b" }], { id: "s:a2", excluded: "replayed" }))
        yield* f.s.store.append("s", { role: "user", id: "s:r3", text: "nudge", synthetic: "think-only" })
        const ctx = yield* f.context()
        expect(ctx.state.step).toBe(1)
        expect(ctx.state.firstStep).toBe(1)
        expect(ctx.state.currentUserId).toBe("s:u0")
        // The fixture's model has no price: its cost is unknown from the start, never "$0".
        expect(ctx.state.meter.costUsd).toBeNull()
        // Counter starts at the history length (4); ids already in the session are skipped.
        expect(ctx.nextId("u")).toBe("s:u4")
        expect(ctx.nextId("a")).toBe("s:a5")
      })
    ))

  test("shadow mode never caps steps by mode and keeps only the first exit", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow: true, maxSteps: 7 })
        expect(ctx.policy.mode).toBe("none")
        expect(ctx.policy.maxSteps).toBe(7)
        expect(yield* act(f.s, ctx, [stopWith("think_only")])).toBe("go")
        ctx.state = { ...ctx.state, step: 3 }
        expect(yield* act(f.s, ctx, [stopWith("max_steps")])).toBe("go")
        expect(ctx.state.exit).toEqual({ reason: "think_only", step: 0 })
      })
    ))

  test("the structured-output tool joins the request tools and answers locally", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const ctx = yield* stageFixture().context({ structuredOutput: { schema: { type: "object" }, toolName: "answer" } })
        expect(ctx.toolSpecs.map((t) => t.name)).toEqual(["bash", "answer"])
        expect(yield* ctx.localTools.get("answer")!({})).toEqual({ state: "completed", output: "Structured result received." })
      })
    ))
})
