import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { AssistantMessage } from "@loopguard/core/model"
import { runSteps } from "../step.js"
import { SessionStoreError } from "../../store/SessionStoreError.js"
import { aborted, cancelledBy, endFromOutside, externalStop, wallClock } from "./run-limits.js"
import { reply, stageFixture } from "./stage-fixture.js"

describe("run limits", () => {
  test("the abort signal ends the run as cancelled, interrupting the running step", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        let interrupted = false
        const controller = new AbortController()
        const f = stageFixture({ process: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))) })
        const ctx = yield* f.context({ signal: controller.signal })
        setTimeout(() => controller.abort(), 10)
        const outside = yield* Effect.raceFirst(runSteps(f.s, ctx), externalStop(f.s, ctx))
        expect(outside?.reason).toBe("cancelled")
        expect(interrupted).toBe(true)
        yield* endFromOutside(f.s, ctx, outside!)
        expect(ctx.state.exit).toEqual({ reason: "cancelled", step: 0, error: { tag: "CancelledError", message: "cancelled by the caller (its abort signal)", uiMessage: "cancelled by the caller (its abort signal)" } })
        expect(ctx.state.incidents).toEqual([{ step: 0, detector: "cancel", action: "stop", kind: "fault", detail: { reason: "cancelled", cause: "caller" } }])
      })
    ), 30_000)

  /** What the processor saves when it is interrupted mid-stream (attempt.ts): text so far, no usage. */
  const cutReply = (step: number): AssistantMessage => {
    const { usage: _none, ...cut } = reply([{ type: "text", text: "word ".repeat(80) }], { id: "s:cut", step, finish: "unknown", error: { message: "cancelled: interrupted before the reply finished", name: "CancelledError", aborted: true } })
    return cut
  }

  test("a reply cut while it streamed counts as the step, its tokens estimated; one that had not begun counts nothing", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const streamedThenCut = (streamed: boolean) => {
          const controller = new AbortController()
          const f = stageFixture({
            process: (input) =>
              Effect.never.pipe(
                Effect.onInterrupt(() =>
                  streamed
                    ? f.s.store.putAssistant(input.sessionId, cutReply(input.step)).pipe(Effect.ignore)
                    : Effect.void
                )
              )
          })
          return Effect.gen(function* () {
            const ctx = yield* f.context({ signal: controller.signal, prompt: "list the files" })
            setTimeout(() => controller.abort(), 10)
            const outside = yield* Effect.raceFirst(runSteps(f.s, ctx), externalStop(f.s, ctx))
            yield* endFromOutside(f.s, ctx, outside!)
            return ctx.state.meter
          })
        }
        const cut = yield* streamedThenCut(true)
        expect(cut.stepsUsed).toBe(1)
        expect(cut.tokens.output).toBe(100)
        expect(cut.tokens.input).toBeGreaterThan(0)
        expect(cut.tokens.estimated).toBe(true)
        const early = yield* streamedThenCut(false)
        expect([early.stepsUsed, early.tokens.total]).toEqual([0, 0])
      })
    ), 30_000)

  test("a stop while the store does not answer still ends the run with its exit: the cut reply is not counted, nothing fails", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture()
        const ctx = yield* f.context()
        const unread = new SessionStoreError({ reason: "unavailable", message: "the session store did not answer within 2s (store.timeoutMs)" })
        const frozen = { ...f.s, store: { ...f.s.store, messages: () => Effect.fail(unread) } }
        yield* endFromOutside(frozen, ctx, cancelledBy(AbortSignal.abort()))
        expect(ctx.state.exit?.reason).toBe("cancelled")
        expect(ctx.state.meter.stepsUsed).toBe(0)
      })
    ))

  test("an already aborted signal answers at once", () =>
    Effect.runPromise(Effect.map(aborted(AbortSignal.abort()), (stop) => expect(stop.reason).toBe("cancelled"))))

  test("loop.maxWallMs: time_limit when the clock passes it, naming the step", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const f = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxWallMs: 60_000 } }) })
        const ctx = yield* f.context()
        const fiber = yield* Effect.forkChild(wallClock(f.s, ctx))
        yield* TestClock.adjust("59999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        ctx.state = { ...ctx.state, step: 4 }
        yield* TestClock.adjust("1 millis")
        const ended = yield* Fiber.join(fiber)
        expect(ended.reason).toBe("time_limit")
        expect(ended.error.message).toContain("60000 ms (loop.maxWallMs) during step 4")
      }).pipe(Effect.provide(TestClock.layer()))
    ))

  test("no wall clock without loop.maxWallMs, nor when replaying", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const off = stageFixture()
        const replay = stageFixture({ config: (c) => ({ ...c, loop: { ...c.loop, maxWallMs: 10 } }) })
        const a = yield* Effect.forkChild(wallClock(off.s, yield* off.context()))
        const b = yield* Effect.forkChild(wallClock(replay.s, yield* replay.context({ shadow: true })))
        yield* TestClock.adjust("1 hour")
        expect(a.pollUnsafe()).toBeUndefined()
        expect(b.pollUnsafe()).toBeUndefined()
      }).pipe(Effect.provide(TestClock.layer()))
    ))
})
