import { capNotice } from "@loopguard/core/caps"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { prepareRequest } from "./step-request.js"
import { stageFixture } from "./stage-fixture.js"

describe("prepareRequest", () => {
  test("a normal step sends the stored history and the tools", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "goal" })
        const ctx = yield* f.context({ system: "be brief" })
        const request = yield* prepareRequest(f.s, ctx, { decision: "proceed", summaryReason: null })
        expect(request.system).toBe("be brief")
        expect(request.messages).toEqual([{ role: "user", text: "goal" }])
        expect(request.tools.map((t) => t.name)).toEqual(["bash"])
      })
    ))

  test("the soft-cap last step is tool-less and carries the notice, which is never stored", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "goal" })
        const ctx = yield* f.context()
        const request = yield* prepareRequest(f.s, ctx, { decision: { type: "last-step" }, summaryReason: null })
        expect(request.tools).toEqual([])
        expect(request.messages.length).toBe(2)
        expect(request.messages[1]).toEqual({ role: "user", text: capNotice({ type: "last-step" }, ctx.policy, { stepsUsed: 0, tokensUsed: 0, costUsd: 0 }, "main") })
        expect(request.messages[1]).toMatchObject({ text: expect.stringContaining("step 1 of 50") })
        expect((yield* f.s.store.messages("s")).length).toBe(1)
      })
    ))

  test("shadow mode sends no notes and keeps the tools (the recorded calls must replay)", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow: true })
        const request = yield* prepareRequest(f.s, ctx, { decision: { type: "summary", reason: "max_steps" }, summaryReason: "max_steps" })
        expect(request.messages).toEqual([])
        expect(request.tools.map((t) => t.name)).toEqual(["bash"])
      })
    ))
})
