import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { executeStep, onNoReply } from "./execute.js"
import { stageFixture } from "./stage-fixture.js"

const request = { messages: [{ role: "user" as const, text: "goal" }], tools: [] }

describe("executeStep", () => {
  test("an abort during the step interrupts the processor and answers cancelled", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        let interrupted = false
        const controller = new AbortController()
        const f = stageFixture({ process: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))) })
        const ctx = yield* f.context({ signal: controller.signal })
        setTimeout(() => controller.abort(), 10)
        expect(yield* executeStep(f.s, ctx, request)).toBe("cancelled")
        expect(interrupted).toBe(true)
        expect(f.processed[0]!.step).toBe(0)
      })
    ), 30_000)

  test("a step past loop.stepTimeoutMs answers timeout", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 1000 } }), process: () => Effect.never })
        const ctx = yield* f.context()
        const fiber = yield* Effect.forkChild(executeStep(f.s, ctx, request))
        yield* TestClock.adjust("1001 millis")
        expect(yield* Fiber.join(fiber)).toBe("timeout")
      }).pipe(Effect.provide(TestClock.layer()))
    ))
})

describe("onNoReply", () => {
  test("a timeout stops with StepTimeoutError and a timeout incident", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 500 } }) })
        const ctx = yield* f.context()
        expect(yield* onNoReply(f.s, ctx, "timeout")).toBe("stop")
        expect(ctx.exit).toEqual({ reason: "timeout", step: 0, error: { tag: "StepTimeoutError", message: "step 0 ran past 500 ms" } })
        expect(ctx.incidents[0]?.detector).toBe("timeout")
      })
    ))

  test("a replayed timeout moves on to the next step; a cancellation always stops", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context({ shadow: true })
        expect(yield* onNoReply(f.s, ctx, "timeout")).toBe("next")
        expect(yield* onNoReply(f.s, ctx, "cancelled")).toBe("stop")
        expect(ctx.exit?.reason).toBe("timeout")
      })
    ))
})
