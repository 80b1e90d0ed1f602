import { expect, test } from "bun:test"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { it, runTest, untilReal } from "./effect-test.js"

it.effect("it.effect runs on the TestClock: a long sleep ends as soon as the clock is moved past it", () =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Effect.sleep("1 hour"))
    yield* TestClock.adjust("59 minutes")
    expect(fiber.pollUnsafe()).toBeUndefined()
    yield* TestClock.adjust("1 minute")
    yield* Fiber.join(fiber)
  }))

it.live("it.live runs on the real clock", () =>
  Effect.gen(function* () {
    const before = Date.now()
    yield* Effect.sleep("20 millis")
    expect(Date.now() - before).toBeGreaterThanOrEqual(15)
  }))

test("a failing body still runs its finalizers, and the failure reaches the test", async () => {
  const released: Array<string> = []
  const failing = () =>
    Effect.gen(function* () {
      yield* Effect.acquireRelease(Effect.succeed("server"), (r) => Effect.sync(() => void released.push(r)))
      expect(1).toBe(2)
    })
  await expect(runTest(failing, Layer.empty, 10_000)).rejects.toThrow("toBe")
  expect(released).toEqual(["server"])
})

test("a body that runs past its timeout is interrupted, its finalizers run, and the test fails naming the timeout", async () => {
  const released: Array<string> = []
  const hanging = () =>
    Effect.gen(function* () {
      yield* Effect.acquireRelease(Effect.succeed("child"), (r) => Effect.sync(() => void released.push(r)))
      yield* Effect.never
    })
  await expect(runTest(hanging, Layer.empty, 200)).rejects.toThrow("ran past its 200 ms timeout")
  expect(released).toEqual(["child"])
}, 30_000)

it.effect("untilReal waits on the real clock inside a TestClock test, and fails naming what it waited for", () =>
  Effect.gen(function* () {
    let ready = false
    setTimeout(() => (ready = true), 50)
    yield* untilReal(() => ready, "the flag", 10_000)
    expect(ready).toBe(true)
    const never = yield* Effect.exit(untilReal(() => false, "a flag nobody sets", 100))
    expect(String(never)).toContain("still waiting after 100 ms: a flag nobody sets")
  }))
