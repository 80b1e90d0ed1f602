import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { CompactionError } from "../../compaction/Compactor.js"
import { contextLimit, fitContext, recoverOverflow } from "./compact.js"
import { reply, stageFixture } from "./stage-fixture.js"

const big = { messages: [{ role: "user" as const, text: "x".repeat(4000) }], tools: [] }
const small = { messages: [{ role: "user" as const, text: "hi" }], tools: [] }

const seeded = (f: ReturnType<typeof stageFixture>) =>
  Effect.gen(function* () {
    yield* f.s.store.append("s", { role: "user", id: "s:u0", text: "goal" })
    for (const i of [1, 2, 3, 4, 5, 6]) yield* f.s.store.append("s", reply([{ type: "text", text: `step ${i}` }], { id: `s:a${i}`, step: i - 1 }))
  })

describe("compaction stage", () => {
  test("fitContext compacts only past the trigger, storing the summary with its range", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2 } }) })
        yield* seeded(f)
        const ctx = yield* f.context()
        expect(yield* fitContext(f.s, ctx, small)).toBe(false)
        expect(yield* fitContext(f.s, ctx, big)).toBe(true)
        const last = (yield* f.s.store.messages("s")).at(-1)
        expect(last).toMatchObject({ role: "user", synthetic: "compaction", compacts: { from: "s:a1", to: "s:a4" } })
        expect(ctx.state.retries["compaction"]).toBe(1)
        expect(ctx.state.compactedSinceLastStep).toBe(true)
        expect(ctx.state.incidents[0]).toMatchObject({ detector: "compaction", action: "compacted", detail: { reason: "near-limit", replaced: 4 } })
      })
    ))

  test("the cap is reported once; a failed summary is an incident, not a crash", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const capped = stageFixture({ config: (c) => ({ ...c, compaction: { ...c.compaction, contextTokens: 100, maxCompactions: 0 } }) })
        yield* seeded(capped)
        const ctx = yield* capped.context()
        expect(yield* fitContext(capped.s, ctx, big)).toBe(false)
        expect(yield* fitContext(capped.s, ctx, big)).toBe(false)
        expect(ctx.state.incidents.map((i) => i.action)).toEqual(["cap"])

        const failing = stageFixture({ config: (c) => ({ ...c, compaction: { ...c.compaction, contextTokens: 100, keepRecentSteps: 1 } }) })
        const broken = { ...failing.s, compactor: { summarise: () => Effect.fail(new CompactionError({ message: "HTTP 500" })) } }
        yield* seeded(failing)
        const ctx2 = yield* failing.context()
        expect(yield* fitContext(broken, ctx2, big)).toBe(false)
        expect(ctx2.state.incidents[0]).toMatchObject({ action: "failed", detail: { error: "HTTP 500" } })
      })
    ))

  test("an overflow reply is left out and the step taken again; other errors go on", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, compaction: { ...c.compaction, keepRecentSteps: 1 } }) })
        yield* seeded(f)
        const ctx = yield* f.context()
        ctx.state = { ...ctx.state, meter: { ...ctx.state.meter, stepsUsed: 3 } }
        const refused = reply([], { id: "s:a7", error: { message: "prompt is too long", status: 400 }, finish: "error" })
        yield* f.s.store.append("s", refused)
        expect(yield* recoverOverflow(f.s, ctx, reply([], { error: { message: "upstream crashed", status: 500 } }))).toBe("go")
        expect(yield* recoverOverflow(f.s, ctx, refused)).toBe("next")
        expect(ctx.state.meter.stepsUsed).toBe(2)
        const stored = yield* f.s.store.messages("s")
        expect(stored.find((m) => m.id === "s:a7")).toMatchObject({ excluded: "replayed" })
        expect(stored.at(-1)).toMatchObject({ compacts: { from: "s:a1", to: "s:a5" } })
      })
    ))

  test("context size: config, then the model table; unknown models have none", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        expect(contextLimit(f.s, yield* f.context())).toBeNull()
        const g = stageFixture({ config: (c) => ({ ...c, compaction: { ...c.compaction, contextSizes: { scripted: 8192 } } }) })
        expect(contextLimit(g.s, yield* g.context())).toBe(8192)
      })
    ))
})
