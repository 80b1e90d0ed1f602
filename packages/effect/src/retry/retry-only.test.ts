import { describe, expect, test } from "bun:test"
import { type NormalizedError } from "@loopguard/core/model"
import { Data, Effect, Exit, Fiber, Filter, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { onlyRetried, RetryExhausted, retryOnly, stopOf } from "./retry-only.js"
import { makeRetryCoordinator } from "./RetryCoordinator.js"
import type { RetryAttemptInfo, RetryStep, RetryStop } from "./schedule.js"

/** The step's own failure: a retry might fix it. */
class CallFailed extends Data.TaggedError("CallFailed")<{ readonly error: NormalizedError }> {}
/** Something else (a store write): never retried. */
class WriteFailed extends Data.TaggedError("WriteFailed")<{ readonly what: string }> {}
type Failure = CallFailed | WriteFailed

const e500: NormalizedError = { message: "Internal Server Error", status: 500, isRetryable: true }
const auth: NormalizedError = { message: "Unauthorized", status: 401 }
const callFailed = Filter.tagged<Failure>()("CallFailed")

/** Fails with each failure in turn, then succeeds with the number of calls. */
const scripted = (failures: ReadonlyArray<Failure>) => {
  const calls = { n: 0 }
  const effect = Effect.suspend((): Effect.Effect<number, Failure> => {
    const i = calls.n++
    return i < failures.length ? Effect.fail(failures[i]!) : Effect.succeed(calls.n)
  })
  return { effect, calls }
}

/** A coordinator policy that records what it was told, jitter-free. */
const recordingPolicy = () => {
  const attempts: Array<RetryAttemptInfo> = []
  const stops: Array<RetryStop> = []
  const policy = makeRetryCoordinator().policy<CallFailed>({
    normalize: (f) => f.error,
    onAttempt: (i) => Effect.sync(() => void attempts.push(i)),
    onStop: (s) => Effect.sync(() => void stops.push(s))
  })
  return { policy, attempts, stops }
}

/** Runs `effect` under the test clock, moving it far enough for every retry to be due. */
const runDriven = <A, E>(effect: Effect.Effect<A, E>): Promise<Exit.Exit<A, E>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(effect)
      yield* Effect.yieldNow
      yield* TestClock.adjust(600_000)
      return yield* Fiber.await(fiber)
    }).pipe(Effect.provide(TestClock.layer()))
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  if (!Exit.isFailure(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? reason.error : undefined
}

describe("stopOf", () => {
  const decision = { retryable: true, kind: "server", scope: "request", phase: "request", reason: "HTTP 500" } as const
  test("a stop is the stop", () => {
    const stop: RetryStop = { retry: false, reason: "deadline", attempt: 2, decision, budget: "request" }
    expect(stopOf(stop)).toBe(stop)
  })

  test("a policy that ended on a grant (a composed limit) ran out of budget", () => {
    const grant: RetryStep = { retry: true, attempt: 3, delayMs: 800, decision, budget: "request", silent: false }
    expect(stopOf(grant)).toEqual({ retry: false, reason: "budget-exhausted", attempt: 3, decision, budget: "request" })
  })
})

describe("onlyRetried", () => {
  test("a passed failure steps the policy; any other fails the step as itself", async () => {
    const { policy, attempts } = recordingPolicy()
    const write = new WriteFailed({ what: "putAssistant" })
    const r = await Effect.runPromise(
      Effect.gen(function* () {
        const step = yield* Schedule.toStep(onlyRetried(callFailed, policy))
        const [granted] = yield* step(0, new CallFailed({ error: e500 }))
        const other = yield* Effect.flip(step(1, write))
        return { granted, other }
      })
    )
    expect(r.granted).toMatchObject({ retry: true, attempt: 1, budget: "request" })
    expect(r.other).toBe(write)
    expect(attempts).toHaveLength(1)
  })
})

describe("retryOnly", () => {
  test("retries the picked failures under the policy until the effect succeeds", async () => {
    const { policy, attempts, stops } = recordingPolicy()
    const { effect, calls } = scripted([new CallFailed({ error: e500 }), new CallFailed({ error: e500 })])
    const exit = await runDriven(effect.pipe(retryOnly(callFailed, policy)))
    expect(exit).toEqual(Exit.succeed(3))
    expect(calls.n).toBe(3)
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2])
    expect(stops).toEqual([])
  })

  test("any other failure fails at once as itself, unseen by the policy, even after retries", async () => {
    const { policy, attempts, stops } = recordingPolicy()
    const write = new WriteFailed({ what: "putAssistant" })
    const { effect, calls } = scripted([new CallFailed({ error: e500 }), write, new CallFailed({ error: e500 })])
    const exit = await runDriven(effect.pipe(retryOnly(callFailed, policy)))
    expect(failureOf(exit)).toBe(write)
    expect(calls.n).toBe(2)
    expect(attempts).toHaveLength(1)
    expect(stops).toEqual([])
  })

  test("a policy that gives up fails with RetryExhausted: the last failure and the stop, as values", async () => {
    const { policy, stops } = recordingPolicy()
    const last = new CallFailed({ error: auth })
    const { effect, calls } = scripted([new CallFailed({ error: e500 }), last])
    const exit = await runDriven(effect.pipe(retryOnly(callFailed, policy)))
    const failure = failureOf(exit)
    expect(failure).toBeInstanceOf(RetryExhausted)
    expect(failure).toMatchObject({ _tag: "RetryExhausted", failure: last, stop: { retry: false, reason: "not-retryable", decision: { kind: "terminal" } } })
    expect(calls.n).toBe(2)
    // The value is the very stop the policy announced.
    expect(stops).toHaveLength(1)
    expect(failure instanceof RetryExhausted && failure.stop).toBe(stops[0]!)
  })

  test("a spent budget: the stop says how many retries were made", async () => {
    const { policy } = recordingPolicy()
    const { effect, calls } = scripted(Array.from({ length: 10 }, () => new CallFailed({ error: e500 })))
    const exit = await runDriven(effect.pipe(retryOnly(callFailed, policy)))
    expect(failureOf(exit)).toMatchObject({ _tag: "RetryExhausted", stop: { reason: "budget-exhausted", attempt: 4, budget: "request" } })
    expect(calls.n).toBe(5)
  })

  test("a policy cut short by a plain limit gives up as budget-exhausted", async () => {
    const { policy } = recordingPolicy()
    const once = policy.pipe(Schedule.while(({ attempt }) => attempt <= 1))
    const { effect, calls } = scripted(Array.from({ length: 10 }, () => new CallFailed({ error: e500 })))
    const exit = await runDriven(effect.pipe(retryOnly(callFailed, once)))
    expect(failureOf(exit)).toMatchObject({ _tag: "RetryExhausted", stop: { retry: false, reason: "budget-exhausted", attempt: 2, budget: "request" } })
    expect(calls.n).toBe(2)
  })
})
