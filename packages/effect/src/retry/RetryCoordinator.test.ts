import { describe, expect, test } from "bun:test"
import { type NormalizedError } from "@loopguard/core/model"
import { DEFAULT_RETRY_BUDGETS, initialRetryState } from "@loopguard/core/retry"
import { Effect, Exit, Fiber, Layer, Random } from "effect"
import { TestClock } from "effect/testing"
import { ConfigService } from "../config/ConfigService.js"
import { RetryConfigError, RetryExhausted } from "./errors.js"
import { RetryCoordinator } from "./RetryCoordinator.js"
import type { RetryAttemptInfo } from "./schedule.js"

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

const noJitter = RetryCoordinator.layerWith({
  request: { jitterRatio: 0 },
  stream: { jitterRatio: 0 },
  server: { jitterRatio: 0 },
  rateLimit: { jitterRatio: 0 }
})

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

describe("RetryCoordinator.retry: delays", () => {
  test("exponential growth, waiting exactly the computed delay before each retry", async () => {
    const result = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([e500, e500, e500])
        const { fiber, attempts } = yield* driven((onAttempt) => rc.retry(effect, { phase: "request", scope: "request", onAttempt }))
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
            rc.retry(effect, { phase: "request", scope: "request", onAttempt }).pipe(Random.withSeed(seed))
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

describe("RetryCoordinator.retry: server hints", () => {
  const firstDelay = (error: NormalizedError, setup: Effect.Effect<void> = Effect.void) =>
    run(
      Effect.gen(function* () {
        yield* setup
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([error])
        const { fiber, attempts } = yield* driven((onAttempt) => rc.retry(effect, { phase: "stream", scope: "live-step", onAttempt }))
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
    // rateLimit budget: max 5 min
    expect((await firstDelay(e429({ "retry-after": "3600" }))).delay).toBe(300_000)
    // server budget: max 30 s
    expect((await firstDelay({ ...e500, status: 503, headers: { "retry-after": "120" } })).delay).toBe(30_000)
  })
})

describe("RetryCoordinator.retry: stopping", () => {
  test("a bounded budget's count: 4 request retries, then RetryExhausted", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = always(e500)
        const { fiber } = yield* driven((onAttempt) => rc.retry(effect, { phase: "request", scope: "request", onAttempt }))
        yield* TestClock.adjust(60_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n }
      }),
      noJitter
    )
    expect(r.calls).toBe(5)
    expect(Exit.isFailure(r.exit)).toBe(true)
    const failure = failureOf(r.exit)
    expect(failure).toBeInstanceOf(RetryExhausted)
    expect(failure).toMatchObject({ reason: "budget-exhausted", attempts: 4, lastError: e500 })
  })

  test("deadline: the next wait would pass it, so it stops before sleeping", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        // request budget: 30 s deadline; each hint asks for 20 s
        const { effect, calls } = always(e429({ "retry-after": "20" }))
        const { fiber } = yield* driven((onAttempt) => rc.retry(effect, { phase: "request", scope: "request", onAttempt }))
        yield* TestClock.adjust(20_000)
        const exit = yield* Fiber.await(fiber)
        return { exit, calls: calls.n }
      })
    )
    expect(r.calls).toBe(2)
    expect(failureOf(r.exit)).toMatchObject({
      _tag: "RetryExhausted",
      reason: "deadline",
      attempts: 1
    })
  })

  test("a terminal error: no retry, onTerminal once, the error comes back unchanged", async () => {
    const auth: NormalizedError = { message: "Unauthorized", status: 401 }
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const terminal: Array<string> = []
        const { effect, calls } = always(auth)
        const exit = yield* Effect.exit(
          rc.retry(effect, {
            phase: "request",
            scope: "request",
            onTerminal: (d, e) => Effect.sync(() => void terminal.push(`${d.kind}:${e.status}`))
          })
        )
        return { exit, calls: calls.n, terminal }
      })
    )
    expect(r.calls).toBe(1)
    expect(r.terminal).toEqual(["terminal:401"])
    expect(failureOf(r.exit)).toBe(auth)
  })

  test("the service-level onTerminal hook is used when the call gives none", async () => {
    const heard: Array<string> = []
    const layer = RetryCoordinator.layerOf({ onTerminal: (e, reason) => Effect.sync(() => void heard.push(`${e.message}|${reason}`)) })
    await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        yield* Effect.exit(rc.retry(always({ message: "nope", status: 404 }).effect, { phase: "request", scope: "request" }))
      }),
      layer
    )
    expect(heard).toEqual(["nope|not found (HTTP 404)"])
  })

  test("an unsafe replay is not retried and is not called terminal", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        let terminal = 0
        const { effect, calls } = always(e500)
        const exit = yield* Effect.exit(
          rc.retry(effect, { phase: "stream", scope: "live-step", replaySafe: () => false, onTerminal: () => Effect.sync(() => void terminal++) })
        )
        return { exit, calls: calls.n, terminal }
      })
    )
    expect(failureOf(r.exit)).toBe(e500)
    expect([r.calls, r.terminal]).toEqual([1, 0])
  })
})

describe("RetryCoordinator.retry: persistent network budget", () => {
  test("keeps retrying past any count until interrupted; interruption stops it", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = always({ message: "Cannot connect to API", status: 200, causes: ["terminated"] })
        const { fiber, attempts } = yield* driven((onAttempt) => rc.retry(effect, { phase: "stream", scope: "live-step", onAttempt }))
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
        const { fiber } = yield* driven((onAttempt) => rc.retry(effect, { phase: "request", scope: "request", onAttempt }))
        yield* TestClock.adjust(60_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n }
      })
    )
    expect(r.calls).toBe(5)
    expect(Exit.isFailure(r.exit)).toBe(true)
  })
})

describe("RetryCoordinator.retry: silent overload retries", () => {
  const overloaded: NormalizedError = { message: "The server is overloaded", code: "server_is_overloaded", status: 200 }

  test("up to N immediate, unannounced retries, then the normal budget", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = flaky([overloaded, overloaded, overloaded, overloaded])
        const { fiber, attempts } = yield* driven((onAttempt) =>
          rc.retry(effect, { phase: "request", scope: "request", overloadedImmediateRetries: rc.overloadedImmediateRetries, onAttempt })
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
})

describe("RetryCoordinator: schedule, nextRetry, decide", () => {
  test("schedule() works with Effect.retry and returns the original error when done", async () => {
    const r = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        const { effect, calls } = always(e500)
        const fiber = yield* Effect.forkChild(Effect.retry(effect, rc.schedule("request", "request")))
        yield* TestClock.adjust(60_000)
        return { exit: yield* Fiber.await(fiber), calls: calls.n }
      })
    )
    expect(failureOf(r.exit)).toBe(e500)
    expect(r.calls).toBe(5)
  })

  test("nextRetry keeps a caller-owned counter across stream-phase replays", async () => {
    const steps = await run(
      Effect.gen(function* () {
        const rc = yield* RetryCoordinator
        let state = initialRetryState
        const out = []
        for (let i = 0; i < 7; i++) {
          const step = yield* rc.nextRetry(state, { message: "x", code: "stream_read_error" }, { phase: "stream", elapsedMs: 0 })
          out.push(step.retry ? `retry#${step.attempt}:${step.budget}` : `stop:${step.reason}`)
          if (step.retry) state = { ...state, attempt: step.attempt }
        }
        const unsafe = yield* rc.nextRetry({ attempt: 0, replaySafe: false }, e500, { phase: "stream", elapsedMs: 0 })
        return { out, unsafe: unsafe.retry ? "retry" : unsafe.reason }
      })
    )
    expect(steps.out).toEqual(["retry#1:stream", "retry#2:stream", "retry#3:stream", "retry#4:stream", "retry#5:stream", "stop:budget-exhausted", "stop:budget-exhausted"])
    expect(steps.unsafe).toBe("unsafe-replay")
  })

  test("decide reads the Effect clock for HTTP-date hints", async () => {
    const d = await run(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("Wed, 21 Oct 2015 07:27:00 GMT"))
        const rc = yield* RetryCoordinator
        return yield* rc.decide({ message: "busy", status: 503, headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } })
      })
    )
    expect(d).toMatchObject({ kind: "server", serverDelayMs: 60_000 })
  })
})

describe("RetryCoordinator layers", () => {
  const budgets = (layer: Layer.Layer<RetryCoordinator, RetryConfigError>) =>
    Effect.runPromise(Effect.exit(Effect.map(RetryCoordinator, (rc) => rc.budgets).pipe(Effect.provide(layer))))

  test("layerWith merges field by field and rejects an invalid section with its path", async () => {
    const ok = await budgets(RetryCoordinator.layerWith({ rateLimit: { maxRetries: 9 } }))
    expect(Exit.isSuccess(ok) && ok.value.rateLimit).toEqual({ ...DEFAULT_RETRY_BUDGETS.rateLimit, maxRetries: 9 })
    const bad = await budgets(RetryCoordinator.layerWith({ server: { deadlineMs: 5, noDeadline: true } }))
    const failure = failureOf(bad)
    expect(failure).toBeInstanceOf(RetryConfigError)
    expect((failure as RetryConfigError).errors).toEqual(["retry.server: deadlineMs and noDeadline are mutually exclusive"])
  })

  test("layerFor applies provider.<id>.retry over retry", async () => {
    const root = { retry: { server: { maxRetries: 2 } }, provider: { openai: { retry: { server: { initialDelayMs: 50 } } } } }
    const ok = await budgets(RetryCoordinator.layerFor("openai", root))
    expect(Exit.isSuccess(ok) && ok.value.server).toEqual({ ...DEFAULT_RETRY_BUDGETS.server, maxRetries: 2, initialDelayMs: 50 })
  })

  test("layerFromConfig reads the config service", async () => {
    const config = ConfigService.layerWith((c) => ({ ...c, retry: { ...c.retry, stream: { maxRetries: 1 } }, provider: { p: { retry: { stream: { jitterRatio: 0 } } } } }))
    const ok = await budgets(RetryCoordinator.layerFromConfig("p").pipe(Layer.provide(config)))
    expect(Exit.isSuccess(ok) && ok.value.stream).toEqual({ ...DEFAULT_RETRY_BUDGETS.stream, maxRetries: 1, jitterRatio: 0 })
  })

  test("layerFromConfig treats an unvalidated, invalid config as a defect", async () => {
    const config = ConfigService.layerWith((c) => ({ ...c, retry: { ...c.retry, server: { deadlineMs: 5, noDeadline: true } } }))
    const exit = await budgets(RetryCoordinator.layerFromConfig().pipe(Layer.provide(config)))
    const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    expect(reason?._tag).toBe("Die")
  })
})
