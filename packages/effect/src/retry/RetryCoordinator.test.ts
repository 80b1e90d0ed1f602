import { describe, expect, test } from "bun:test"
import { type NormalizedError } from "@loopguard/core/model"
import { DEFAULT_RETRY_BUDGETS } from "@loopguard/core/retry"
import { Effect, Exit, Fiber, Layer, Random } from "effect"
import { TestClock } from "effect/testing"
import { ConfigService } from "../config/ConfigService.js"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import { RetryConfigError } from "./errors.js"
import { makeRetryCoordinator, RetryCoordinator } from "./RetryCoordinator.js"
import type { RetryAttemptInfo, RetryStop } from "./schedule.js"

const run = <A, E>(
  effect: Effect.Effect<A, E, RetryCoordinator>,
  layer: Layer.Layer<RetryCoordinator, unknown> = RetryCoordinator.layer
): Promise<A> => Effect.runPromise(effect.pipe(Effect.provide(Layer.merge(layer, TestClock.layer()))) as Effect.Effect<A>)

/** Fails with each error in turn, then succeeds with the number of calls. */
const flaky = (errors: ReadonlyArray<NormalizedError>) => {
  const calls = { n: 0 }
  const effect = Effect.suspend(() => {
    const i = calls.n++
    return i < errors.length ? Effect.fail(errors[i]!) : Effect.succeed(calls.n)
  })
  return { effect, calls }
}

/** The typed failure of an exit, or undefined. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): unknown => {
  if (!Exit.isFailure(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? reason.error : undefined
}

const always = (error: NormalizedError) => {
  const calls = { n: 0 }
  return { effect: Effect.suspend(() => (calls.n++, Effect.fail(error))), calls }
}

const noJitter = Layer.effect(
  RetryCoordinator,
  RetryCoordinator.make({ retry: { request: { jitterRatio: 0 }, stream: { jitterRatio: 0 }, server: { jitterRatio: 0 }, rateLimit: { jitterRatio: 0 } } })
)

const e500: NormalizedError = { message: "Internal Server Error", status: 500, isRetryable: true }
const e429 = (headers: Record<string, string>, message = "Too Many Requests"): NormalizedError => ({ message, status: 429, headers })

/** Runs `effect` in a fiber, recording onAttempt, and lets the test drive the clock. */
const driven = <A, E>(
  make: (onAttempt: (i: RetryAttemptInfo) => Effect.Effect<void>) => Effect.Effect<A, E, RetryCoordinator>
) =>
  Effect.gen(function* () {
    const attempts: Array<RetryAttemptInfo> = []
    const fiber = yield* Effect.forkChild(make((i) => Effect.sync(() => void attempts.push(i))))
    yield* Effect.yieldNow
    return { fiber, attempts }
  })

/** In the stream phase (the step already streamed): stream-phase budgets apply. */
const streamed = (error: NormalizedError): NormalizedError => ({ ...error, phase: "stream" })

describe("RetryCoordinator.policy: delays", () => {
  test("exponential growth, waiting exactly the computed delay before each retry", async () => {
    const result = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([e500, e500, e500])
        const { fiber, attempts } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
        const seen: Array<number> = [calls.n]
        for (const wait of [200, 400, 800]) {
          yield* TestClock.adjust(wait - 1)
          seen.push(calls.n) // not yet
          yield* TestClock.adjust(1)
          seen.push(calls.n)
        }
        return { value: yield* Fiber.join(fiber), seen, delays: attempts.map((a) => [a.attempt, a.delayMs, a.kind, a.maxRetries]) }
      }),
      noJitter
    )
    expect(result.seen).toEqual([1, 1, 2, 2, 3, 3, 4])
    expect(result.value).toBe(4)
    expect(result.delays).toEqual([
      [1, 200, "server", 4],
      [2, 400, "server", 4],
      [3, 800, "server", 4]
    ])
  })

  test("jitter keeps each delay within ±10% of the backoff and does vary it", async () => {
    const delays = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const out: Array<number> = []
        for (let seed = 0; seed < 20; seed++) {
          const { effect } = flaky([e500])
          const { fiber, attempts } = yield* driven((onAttempt) =>
            Effect.retry(effect, rc.policy({ onAttempt })).pipe(Random.withSeed(seed))
          )
          yield* TestClock.adjust(1_000)
          yield* Fiber.join(fiber)
          out.push(attempts[0]!.delayMs)
        }
        return out
      })
    )
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(180)
      expect(d).toBeLessThanOrEqual(220)
    }
    expect(new Set(delays).size).toBeGreaterThan(1)
  })
})

describe("RetryCoordinator.policy: server hints", () => {
  const firstDelay = (error: NormalizedError, setup: Effect.Effect<void> = Effect.void) =>
    run(
      Effect.gen(function* () {
        yield* setup
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([streamed(error)])
        const { fiber, attempts } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
        const delay = attempts[0]!.delayMs
        yield* TestClock.adjust(delay - 1)
        const before = calls.n
        yield* TestClock.adjust(1)
        yield* Fiber.join(fiber)
        return { delay, before, after: calls.n }
      })
    )

  test("retry-after-ms", async () => {
    expect(await firstDelay(e429({ "retry-after-ms": "1234" }))).toEqual({ delay: 1234, before: 1, after: 2 })
  })

  test("retry-after in seconds", async () => {
    expect((await firstDelay(e429({ "retry-after": "7" }))).delay).toBe(7_000)
  })

  test("retry-after as an HTTP date, relative to the Effect clock", async () => {
    const at = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")
    const r = await firstDelay(e429({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }), TestClock.setTime(at - 9_000))
    expect(r).toEqual({ delay: 9_000, before: 1, after: 2 })
  })

  test("a 'try again in' message", async () => {
    expect((await firstDelay(e429({}, "Rate limit reached. Please try again in 2.5s."))).delay).toBe(2_500)
  })

  test("hints are clamped to [100 ms, budget max]", async () => {
    expect((await firstDelay(e429({ "retry-after-ms": "3" }))).delay).toBe(100)
    // rateLimit budget: max 5 min (a hint past its 15 min deadline is not waited at all: next.test.ts)
    expect((await firstDelay(e429({ "retry-after": "600" }))).delay).toBe(300_000)
    // server budget: max 30 s
    expect((await firstDelay({ ...e500, status: 503, headers: { "retry-after": "120" } })).delay).toBe(30_000)
  })
})

describe("RetryCoordinator.policy: stopping", () => {
  /** Retries `effect` under the policy and records why it stopped. */
  const stopped = <A>(effect: Effect.Effect<A, NormalizedError>, options: { readonly replaySafe?: () => boolean } = {}) =>
    Effect.gen(function* () {
      const rc = yield* RetryCoordinator
      const stops: Array<RetryStop> = []
      const fiber = yield* Effect.forkChild(Effect.retry(effect, rc.policy({ ...options, onStop: (s) => Effect.sync(() => void stops.push(s)) })))
      yield* Effect.yieldNow
      return { fiber, stops }
    })

  test("a bounded budget's count: 4 request retries, then the last error and why", async () => {
    const r = await run(
      Effect.gen(function* () {
        const { effect, calls } = always(e500)
        const { fiber, stops } = yield* stopped(effect)
        yield* TestClock.adjust(60_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n, stops }
      }),
      noJitter
    )
    expect(r.calls).toBe(5)
    expect(failureOf(r.exit)).toBe(e500)
    expect(r.stops).toMatchObject([{ reason: "budget-exhausted", attempt: 4, budget: "request" }])
  })

  test("deadline: the next wait would pass it, so it stops before sleeping", async () => {
    const r = await run(
      Effect.gen(function* () {
        // request budget: 30 s deadline; each hint asks for 20 s
        const { effect, calls } = always(e429({ "retry-after": "20" }))
        const { fiber, stops } = yield* stopped(effect)
        yield* TestClock.adjust(20_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n, stops }
      })
    )
    expect(r.calls).toBe(2)
    expect(r.stops).toMatchObject([{ reason: "deadline", attempt: 1 }])
  })

  test("a terminal error: no retry, the service's onTerminal hook once, the error comes back unchanged", async () => {
    const auth: NormalizedError = { message: "Unauthorized", status: 401 }
    const heard: Array<string> = []
    const layer = Layer.succeed(RetryCoordinator, makeRetryCoordinator({ onTerminal: (e, reason) => Effect.sync(() => void heard.push(`${e.status}|${reason}`)) }))
    const r = await run(
      Effect.gen(function* () {
        const { effect, calls } = always(auth)
        const { fiber, stops } = yield* stopped(effect)
        return { exit: yield* Fiber.await(fiber), calls: calls.n, stops }
      }),
      layer
    )
    expect(r.calls).toBe(1)
    expect(heard).toEqual(["401|authentication failure (HTTP 401)"])
    expect(r.stops).toMatchObject([{ reason: "not-retryable", decision: { kind: "terminal" } }])
    expect(failureOf(r.exit)).toBe(auth)
  })

  test("an unsafe replay is not retried and is not called terminal", async () => {
    let terminal = 0
    const layer = Layer.succeed(RetryCoordinator, makeRetryCoordinator({ onTerminal: () => Effect.sync(() => void terminal++) }))
    const r = await run(
      Effect.gen(function* () {
        const { effect, calls } = always(streamed(e500))
        const { fiber, stops } = yield* stopped(effect, { replaySafe: () => false })
        return { exit: yield* Fiber.await(fiber), calls: calls.n, stops }
      }),
      layer
    )
    expect(failureOf(r.exit)).toEqual(streamed(e500))
    expect([r.calls, terminal]).toEqual([1, 0])
    expect(r.stops).toMatchObject([{ reason: "unsafe-replay" }])
  })

  test("stream-phase replays share one counter: 5 stream retries, then budget-exhausted", async () => {
    const r = await run(
      Effect.gen(function* () {
        const { effect, calls } = always(streamed({ message: "x", code: "stream_read_error" }))
        const { fiber, stops } = yield* stopped(effect)
        yield* TestClock.adjust(600_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n, stops }
      })
    )
    expect(r.calls).toBe(6)
    expect(r.stops).toMatchObject([{ reason: "budget-exhausted", attempt: 5, budget: "stream" }])
  })
})

describe("RetryCoordinator.policy: persistent network budget", () => {
  test("keeps retrying past any count until interrupted; interruption stops it", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = always(streamed({ message: "Cannot connect to API", status: 200, causes: ["terminated"] }))
        const { fiber, attempts } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
        for (let i = 0; i < 150; i++) yield* TestClock.adjust(60_000)
        const callsBefore = calls.n
        yield* Fiber.interrupt(fiber)
        const exit = yield* Fiber.await(fiber)
        yield* TestClock.adjust(3_600_000)
        return { callsBefore, callsAfter: calls.n, exit, attempts }
      })
    )
    expect(r.callsBefore).toBeGreaterThan(DEFAULT_RETRY_BUDGETS.network.maxRetries)
    expect(r.callsAfter).toBe(r.callsBefore)
    expect(Exit.hasInterrupts(r.exit)).toBe(true)
    expect(r.attempts.every((a) => a.kind === "network" && a.maxRetries === null)).toBe(true)
    expect(r.attempts.slice(0, 5).map((a) => a.delayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 60_000])
  })

  test("in the request phase the same error uses the bounded request budget", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = always({ message: "fetch failed", causes: ["ECONNREFUSED"] })
        const { fiber } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
        yield* TestClock.adjust(60_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n }
      })
    )
    expect(r.calls).toBe(5)
    expect(Exit.isFailure(r.exit)).toBe(true)
  })
})

describe("RetryCoordinator.policy: silent overload retries", () => {
  const overloaded: NormalizedError = { message: "The server is overloaded", code: "server_is_overloaded", status: 200 }

  test("up to N immediate, unannounced retries, then the normal budget", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([overloaded, overloaded, overloaded, overloaded])
        const { fiber, attempts } = yield* driven((onAttempt) =>
          Effect.retry(effect, rc.policy({ mainSession: true, onAttempt }))
        )
        const immediate = calls.n
        yield* TestClock.adjust(200)
        return { immediate, value: yield* Fiber.join(fiber), attempts: attempts.map((a) => [a.attempt, a.delayMs]) }
      }),
      noJitter
    )
    expect(r.immediate).toBe(4) // 1 + 3 silent retries without the clock moving
    expect(r.value).toBe(5)
    expect(r.attempts).toEqual([[1, 200]])
  })

  test("outside the main session there are no silent retries", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([overloaded])
        const { fiber, attempts } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
        const immediate = calls.n
        yield* TestClock.adjust(200)
        return { immediate, value: yield* Fiber.join(fiber), attempts: attempts.length }
      }),
      noJitter
    )
    expect([r.immediate, r.value, r.attempts]).toEqual([1, 2, 1])
  })
})

describe("RetryCoordinator layers", () => {
  /** Fails with `error` until the policy gives up; the calls made and the announced delays. */
  const exhaust = (layer: Layer.Layer<RetryCoordinator, RetryConfigError>, error: NormalizedError) =>
    Effect.runPromise(
      Effect.exit(
        Effect.gen(function* () {
          const rc = yield* RetryCoordinator
          const { effect, calls } = always(error)
          const { fiber, attempts } = yield* driven((onAttempt) => Effect.retry(effect, rc.policy({ onAttempt })))
          for (let i = 0; i < 40; i++) yield* TestClock.adjust(60_000)
          yield* Fiber.await(fiber)
          return { calls: calls.n, delays: attempts.map((a) => a.delayMs) }
        }).pipe(Effect.provide(Layer.merge(layer, TestClock.layer())))
      )
    )

  test("the deprecated layerWith still merges field by field and rejects an invalid section with its path", async () => {
    const ok = await exhaust(RetryCoordinator.layerWith({ rateLimit: { maxRetries: 9 } }), streamed(e429({})))
    expect(Exit.isSuccess(ok) && ok.value.calls).toBe(10)
    const bad = await exhaust(RetryCoordinator.layerWith({ server: { deadlineMs: 5, noDeadline: true } }), e500)
    const failure = failureOf(bad)
    expect(failure).toBeInstanceOf(RetryConfigError)
    expect((failure as RetryConfigError).errors).toEqual(["retry.server: deadlineMs and noDeadline are mutually exclusive"])
  })

  test("the deprecated layerFor still applies provider.<id>.retry over retry", async () => {
    const root = { retry: { server: { maxRetries: 2, jitterRatio: 0 } }, provider: { openai: { retry: { server: { initialDelayMs: 150 } } } } }
    const ok = await exhaust(RetryCoordinator.layerFor("openai", root), streamed(e500))
    expect(Exit.isSuccess(ok) && ok.value).toEqual({ calls: 3, delays: [150, 300] })
    const other = await exhaust(RetryCoordinator.layerFor("other", root), streamed(e500))
    expect(Exit.isSuccess(other) && other.value).toEqual({ calls: 3, delays: [2_000, 4_000] })
  })

  test("layerConfig reads the Config service", async () => {
    const config = Layer.succeed(ConfigService, { ...DEFAULT_CONFIG, retry: { stream: { maxRetries: 1 } }, provider: { p: { retry: { stream: { jitterRatio: 0 } } } } })
    const ok = await exhaust(RetryCoordinator.layerConfig("p").pipe(Layer.provide(config)), streamed({ message: "x", code: "stream_read_error" }))
    expect(Exit.isSuccess(ok) && ok.value).toEqual({ calls: 2, delays: [DEFAULT_RETRY_BUDGETS.stream.initialDelayMs] })
  })

  test("make checks a retry section with the config's schema and names each bad field by its path", async () => {
    const ok = await exhaust(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { rateLimit: { maxRetries: 9 } } })), streamed(e429({})))
    expect(Exit.isSuccess(ok) && ok.value.calls).toBe(10)
    const bad = await exhaust(
      Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { server: { deadlineMs: 5, noDeadline: true }, request: { maxRetries: 101 } } })),
      e500
    )
    expect((failureOf(bad) as RetryConfigError).errors).toEqual([
      "retry.request.maxRetries: Expected a value between 0 and 100",
      "retry.server: deadlineMs and noDeadline are mutually exclusive"
    ])
    const unknownBudget = await exhaust(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { servr: {} } as never })), e500)
    expect((failureOf(unknownBudget) as RetryConfigError).errors).toEqual(["retry.servr: Expected no excess property"])
  })

  test("layerConfig reads the provider's budgets from the ConfigService, like the deprecated layerFromConfig", async () => {
    const config = Layer.succeed(ConfigService, { ...DEFAULT_CONFIG, retry: { server: { maxRetries: 1, jitterRatio: 0 } }, provider: { p: { retry: { server: { initialDelayMs: 10 } } } } })
    for (const layer of [RetryCoordinator.layerConfig("p"), RetryCoordinator.layerFromConfig("p")]) {
      const ok = await exhaust(layer.pipe(Layer.provide(config)), streamed(e500))
      expect(Exit.isSuccess(ok) && ok.value).toEqual({ calls: 2, delays: [10] })
    }
  })
})
