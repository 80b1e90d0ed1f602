import { expect, test } from "bun:test"
import { Effect, Exit, Scope } from "effect"
import { boundedScope, detachedTimeout } from "./deadline.js"

test("a call that never lets go (uninterruptible) still gives way to the deadline", async () => {
  const started = Date.now()
  const r = await Effect.runPromise(detachedTimeout(Effect.uninterruptible(Effect.never), 200, () => Effect.succeed("timed out")))
  expect(r).toBe("timed out")
  expect(Date.now() - started).toBeLessThan(20_000)
  expect(await Effect.runPromise(detachedTimeout(Effect.succeed("answer"), 10_000, () => Effect.succeed("timed out")))).toBe("answer")
}, 30_000)

test("a scope whose finalizer never ends is closed within its bound", async () => {
  const exit = await Effect.runPromiseExit(
    Effect.scoped(Effect.flatMap(boundedScope(200), (inner) => Scope.addFinalizer(inner, Effect.never)))
  )
  expect(Exit.isSuccess(exit)).toBe(true)
}, 30_000)
