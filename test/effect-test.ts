/**
 * Tests written as Effects. Each test runs in its own scope: whatever it acquires (a scripted server, a
 * harness, a store, a child process, a temp folder) is released by its finalizer when the test ends,
 * whether it passed, failed or ran out of time, so a test needs no `try … finally`.
 *
 * - `it.effect` runs on the TestClock: time moves only when the test calls `TestClock.adjust`, for tests
 *   about the logic of time (deadlines, backoff, timeouts) that should not wait for real.
 * - `it.live` runs on the real clock, for tests that wait on real I/O (HTTP, child processes, files).
 */
import { test } from "bun:test"
import { Effect, Layer, type Scope } from "effect"
import { TestClock } from "effect/testing"

/** A test's body: an Effect that may acquire scoped resources. */
export type TestBody = () => Effect.Effect<unknown, unknown, Scope.Scope>

/** Bun's own timeout, a backstop that fires only if the test's fiber does not stop when interrupted. */
const BACKSTOP_MS = 15_000
const DEFAULT_TIMEOUT_MS = 30_000

/**
 * Runs `body` in a fresh scope with `clock`, interrupting it after `timeoutMs` of real time so its
 * finalizers still run. The timeout sits outside the clock layer: it counts real milliseconds even
 * when the body runs on the TestClock.
 */
export const runTest = (body: TestBody, clock: Layer.Layer<never>, timeoutMs: number): Promise<unknown> =>
  Effect.runPromise(
    Effect.scoped(body()).pipe(
      Effect.provide(clock),
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () => Effect.die(new Error(`the test ran past its ${timeoutMs} ms timeout (its resources were released)`))
      })
    )
  )

const define = (clock: () => Layer.Layer<never>) => {
  const run = (name: string, body: TestBody, timeoutMs = DEFAULT_TIMEOUT_MS) =>
    test(name, () => runTest(body, clock(), timeoutMs), timeoutMs + BACKSTOP_MS)
  /** The same test, skipped when `condition` holds (say why in its name: skip-name.ts). */
  const skipIf = (condition: boolean) => (name: string, body: TestBody, timeoutMs = DEFAULT_TIMEOUT_MS) =>
    test.skipIf(condition)(name, () => runTest(body, clock(), timeoutMs), timeoutMs + BACKSTOP_MS)
  /** One test per case, as bun's `test.each` (an array case is spread into the body's arguments). */
  const each = <T>(cases: ReadonlyArray<T>) =>
    (name: string, body: (...args: CaseArgs<T>) => ReturnType<TestBody>, timeoutMs = DEFAULT_TIMEOUT_MS) =>
      test.each(cases as Array<T>)(name, (...args) => runTest(() => body(...(args as unknown as CaseArgs<T>)), clock(), timeoutMs), timeoutMs + BACKSTOP_MS)
  return Object.assign(run, { skipIf, each })
}

type CaseArgs<T> = T extends ReadonlyArray<unknown> ? T : [T]

const testClock = (): Layer.Layer<never> => TestClock.layer() as Layer.Layer<never>

export const it = {
  /** A test on the TestClock. */
  effect: define(testClock),
  /** A test on the real clock. */
  live: define(() => Layer.empty)
}

/**
 * Waits on the real clock (also inside `it.effect`) until `ready()` holds, for real I/O a TestClock
 * test depends on (a server answering, an event published); fails after `timeoutMs` of real time.
 */
export const untilReal = (ready: () => boolean, what: string, timeoutMs = 30_000): Effect.Effect<void> =>
  TestClock.withLive(
    Effect.gen(function* () {
      const deadline = Date.now() + timeoutMs
      while (!ready()) {
        if (Date.now() > deadline) return yield* Effect.die(new Error(`still waiting after ${timeoutMs} ms: ${what}`))
        yield* Effect.sleep("10 millis")
      }
    })
  )
