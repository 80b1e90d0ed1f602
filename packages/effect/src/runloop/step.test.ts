import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { processResult, reply, stageFixture } from "./stages/stage-fixture.js"
import { runStep } from "./step.js"

describe("runStep", () => {
  test("think-only then an answer: one reminder, then a final stop", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const replies = [reply([{ type: "reasoning", text: "hmm" }]), reply([{ type: "text", text: "Fixed." }])]
        const f = stageFixture({
          process: (input) =>
            Effect.gen(function* () {
              const r = { ...replies.shift()!, id: input.messageId(1), parentId: input.parentId, step: input.step }
              yield* f.s.store.putAssistant(input.sessionId, r)
              return processResult(r)
            })
        })
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "fix it" })
        const ctx = yield* f.context()
        expect(yield* runStep(f.s, ctx)).toBe("go")
        ctx.state = { ...ctx.state, step: ctx.state.step + 1 }
        expect(yield* runStep(f.s, ctx)).toBe("stop")
        expect(ctx.state.exit).toEqual({ reason: "final", step: 1 })
        expect(ctx.state.retries).toEqual({ "think-only": 1 })
        // The second request carried the stored reminder after the think-only reply.
        const stored = (yield* f.s.store.messages("s")).find((m) => m.role === "user" && m.synthetic === "think-only")
        expect(stored).toBeDefined()
        expect(f.processed[1]!.request.messages.at(-1)).toEqual({ role: "user", text: stored?.role === "user" ? stored.text : "" })
        expect(f.processed.map((p) => p.step)).toEqual([0, 1])
      })
    ))

  test("a spent cap stops before any request", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 1 } }) })
        const ctx = yield* f.context()
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 1 } }
        expect(yield* runStep(f.s, ctx)).toBe("stop")
        expect(f.processed).toEqual([])
        expect(ctx.state.exit?.reason).toBe("max_steps")
      })
    ))
})
