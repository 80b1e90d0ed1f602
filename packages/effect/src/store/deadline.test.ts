import { expect, test } from "bun:test"
import { Cause, Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { boundedScope, detachedTimeout } from "./deadline.js"
import type { SessionStoreError } from "./SessionStoreError.js"
import { withDeadline } from "./sql-store.js"

/** Runs `effect` on the TestClock: time moves only by `TestClock.adjust`. */
const onTestClock = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(Effect.provide(effect, TestClock.layer()))

test("a call that never lets go (uninterruptible) still gives way to the deadline", () =>
  onTestClock(
    Effect.gen(function* () {
      const waiting = yield* Effect.forkChild(detachedTimeout(Effect.uninterruptible(Effect.never), 200, () => Effect.succeed("timed out")))
      yield* TestClock.adjust("199 millis")
      expect(waiting.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(waiting)).toBe("timed out")
      expect(yield* detachedTimeout(Effect.succeed("answer"), 10_000, () => Effect.succeed("timed out"))).toBe("answer")
    })
  ), 30_000)

test("a scope whose finalizer never ends is closed within its bound", () =>
  onTestClock(
    Effect.gen(function* () {
      const closing = yield* Effect.forkChild(Effect.exit(Effect.scoped(Effect.flatMap(boundedScope(200), (inner) => Scope.addFinalizer(inner, Effect.never)))))
      yield* TestClock.adjust("199 millis")
      expect(closing.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(Exit.isSuccess(yield* Fiber.join(closing))).toBe(true)
    })
  ), 30_000)

test("a store call whose driver dies (a connection lost mid-transaction) fails as unavailable, naming the call", () =>
  onTestClock(
    Effect.gen(function* () {
      const died = Effect.die(new Error("PgConnection: Connection closed")) as Effect.Effect<never, SessionStoreError>
      const exit = yield* Effect.exit(died.pipe(withDeadline(5_000, "append messages", "s1")))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(false)
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      expect(Option.map(error, (e) => [e.reason, e.message])).toEqual(Option.some(["unavailable", "session s1: could not append messages: PgConnection: Connection closed"]))
    })
  ), 30_000)
