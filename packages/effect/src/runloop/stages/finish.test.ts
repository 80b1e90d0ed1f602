import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { finishRun } from "./finish.js"
import { reply, stageFixture } from "./stage-fixture.js"

describe("finishRun", () => {
  test("one report from the context, then idle and run.finished", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ structuredOutput: { schema: {} } })
        ctx.state = { ...ctx.state, exit: { reason: "max_steps", step: 4 } }
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 4 } }
        ctx.state = { ...ctx.state, lastReply: reply([{ type: "text", text: "partial answer" }]) }
        ctx.state = { ...ctx.state, structured: { value: { n: 1 } } }
        const result = yield* finishRun(f.s, ctx)
        expect(result.report).toMatchObject({ reason: "max_steps", status: "aborted", stepsUsed: 4, finalText: "partial answer", savedAt: "in memory only (session s)" })
        expect(result.exit).toEqual({ reason: "max_steps", step: 4 })
        expect(result.structured).toEqual({ n: 1 })
        expect(f.events.map((e) => e.type)).toEqual(["session.status", "run.finished"])
      })
    ))
})
