/**
 * The retry coordinator against a failing HTTP server (docs/retry.md): every fault goes through the real
 * AI SDK provider, SessionProcessor and (where the next request matters) RunLoop. Budgets are made
 * small and jitter-free by `fastRetry`; each budget has its own initial delay, so an attempt
 * event's `delayMs` shows which budget granted the retry.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { RunLoop, SessionStore, type LoopguardConfig, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { it, untilReal } from "./effect-test.js"
import { harness } from "./harness.js"
import { cutAfterToolCall, faultHarness } from "./retry-faults/fault-harness.js"
import { attemptsOf, FAST_INITIAL_MS, fastRetry, httpError, occurrences, overloaded, processStep, terminalsOf } from "./retry-faults/helpers.js"

const runLoop = (prompt = "List the files") =>
  Effect.gen(function* () {
    return yield* (yield* RunLoop).run({ sessionId: "s", prompt })
  })

/** A bash tool that counts its runs. */
const countingTool = () => {
  const calls: Array<unknown> = []
  const tool: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async (input) => (calls.push(input), { state: "completed", output: `ran ${String(input["command"])}`, exitCode: 0 })
  }
  return { tool, calls }
}

const ANSWER = "Hello there, all is well."

describe("rate limits (429) follow the server's hint", () => {
  it.effect("retry-after: 1 → one retry after 1000 ms, kind rate_limit, then the answer", () => Effect.gen(function* () {
    const h = yield* harness([httpError(429, { headers: { "retry-after": "1" } }), textStream(ANSWER)], { config: fastRetry() })
    const step = yield* Effect.forkChild(h.provide(processStep()))
    yield* untilReal(() => attemptsOf(h.events).length === 1, "the retry is announced", 20_000)
    // The wait really happens (not only announced): on the TestClock, no second request before 1000 ms.
    yield* TestClock.adjust("999 millis")
    yield* TestClock.withLive(Effect.sleep("200 millis"))
    expect(h.server.requests.length).toBe(1)
    yield* TestClock.adjust("1 millis")
    const { result } = yield* Fiber.join(step)
    expect(h.server.requests.length).toBe(2)
    const attempts = attemptsOf(h.events)
    expect(attempts.map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([["request", "rate_limit", 1, 1000]])
    expect(result.outcome.type).toBe("continue")
    expect(result.attempts).toBe(2)
    expect(textOf(result.message)).toBe(ANSWER)
  }))

  // A request-phase 429 is governed by the `request` budget (budget choice: request phase first), so
  // the hint is clamped to request.maxDelayMs, not rateLimit.maxDelayMs.
  it.live.each([
    { name: "retry-after-ms is milliseconds", headers: { "retry-after-ms": "250" }, requestMax: 2_000, expected: 250 },
    { name: "retry-after-ms wins over retry-after", headers: { "retry-after-ms": "120", "retry-after": "5" }, requestMax: 2_000, expected: 120 },
    { name: "a hint above the request budget's max is clamped to it", headers: { "retry-after": "1" }, requestMax: 300, expected: 300 },
    { name: "a hint below 100 ms is raised to 100 ms", headers: { "retry-after-ms": "5" }, requestMax: 2_000, expected: 100 }
  ])("$name", ({ headers, requestMax, expected }) => Effect.gen(function* () {
    const config = fastRetry({ request: { maxDelayMs: requestMax }, rateLimit: { maxDelayMs: 60_000 } })
    const h = yield* harness([httpError(429, { headers }), textStream(ANSWER)], { config })
    const { result } = yield* h.provide(processStep())
    expect(attemptsOf(h.events).map((a) => [a.kind, a.delayMs])).toEqual([["rate_limit", expected]])
    expect(textOf(result.message)).toBe(ANSWER)
  }))
})

describe("server errors (5xx)", () => {
  // The request budget allows fewer retries than the server budget's default 8: the request count
  // shows which one governed. Both counts are tried so neither can pass by coincidence.
  it.live.each([1, 3])("a request-phase 500 uses the request budget (request.maxRetries = %d), then fails clearly", (maxRetries) => Effect.gen(function* () {
    const config = fastRetry({ request: { maxRetries } })
    const always500: ScriptedResponse = httpError(500, { body: { error: { message: "upstream crashed", type: "server_error" } } })
    const h = yield* harness(() => always500, { config })
    const { report } = yield* h.provide(runLoop())
    expect(h.server.requests.length).toBe(1 + maxRetries)
    const attempts = attemptsOf(h.events)
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: maxRetries }, (_, i) => i + 1))
    for (const a of attempts) {
      expect([a.phase, a.scope, a.kind, a.maxRetries]).toEqual(["request", "request", "server", maxRetries])
    }
    // request budget backoff: 10 ms doubling (the server budget would start at 40 ms).
    expect(attempts.map((a) => a.delayMs)).toEqual(attempts.map((_, i) => FAST_INITIAL_MS.request * 2 ** i))
    expect(report.reason).toBe("model_error")
    expect(report.error?.message).toContain("upstream crashed")
    expect(report.error?.message).toMatch(/\b500\b/)
    expect(report.error?.message).toMatch(new RegExp(`${maxRetries} retr`))
  }))

  it.live("a request-phase 500 with retry.server's limit set: the server budget governs it (count and delays)", () => Effect.gen(function* () {
    const config = fastRetry({ request: { maxRetries: 4 }, server: { maxRetries: 2 } })
    const always500: ScriptedResponse = httpError(500, { body: { error: { message: "upstream crashed", type: "server_error" } } })
    const h = yield* harness(() => always500, { config })
    const { report } = yield* h.provide(runLoop())
    expect(h.server.requests.length).toBe(3)
    const attempts = attemptsOf(h.events)
    expect(attempts.map((a) => [a.phase, a.kind, a.maxRetries])).toEqual([["request", "server", 2], ["request", "server", 2]])
    expect(attempts.map((a) => a.delayMs)).toEqual([FAST_INITIAL_MS.server, FAST_INITIAL_MS.server * 2])
    expect(report.reason).toBe("model_error")
  }))

  it.live("the deadline stops the retries before the count does, and the error says so", () => Effect.gen(function* () {
    // Scaled so that a loaded machine's slow requests still leave room for two retries.
    const config = fastRetry({ request: { maxRetries: 50, deadlineMs: 1_000, initialDelayMs: 100 } })
    const h = yield* harness(() => httpError(503), { config })
    const { report } = yield* h.provide(runLoop())
    const attempts = attemptsOf(h.events)
    // 100 + 200 + 400 ms fit in 1 s; with the next 800 ms wait the step would pass the deadline.
    expect(attempts.length).toBeGreaterThanOrEqual(2)
    expect(attempts.length).toBeLessThanOrEqual(3)
    expect(attempts.reduce((sum, a) => sum + a.delayMs, 0)).toBeLessThanOrEqual(1_000)
    expect(h.server.requests.length).toBe(attempts.length + 1)
    expect(report.reason).toBe("model_error")
    expect(report.error?.message).toMatch(/HTTP 503; gave up after \d retr(y|ies): deadline/)
  }))

  it.live("a Retry-After past the deadline: the run ends at once, and the error says what the server asked for and which knob bounds it", () => Effect.gen(function* () {
    // The default budgets: a 429 draws on the request budget, whose deadline is 30 s.
    const h = yield* harness(() => httpError(429, { headers: { "retry-after": "35" } }))
    const { report } = yield* h.provide(runLoop())
    expect(h.server.requests.length).toBe(1)
    expect(report.reason).toBe("model_error")
    expect(report.error?.message).toMatch(/HTTP 429; the server asked to wait 35 s, past the retry deadline \(retry\.request\.deadlineMs\); gave up after 0 retries: deadline/)
  }))

  it.live("a stream-phase server error uses the server budget, not the request or stream budget", () => Effect.gen(function* () {
    const midStreamError: ScriptedResponse = {
      type: "stream",
      chunks: [{ text: "Working" }, { raw: JSON.stringify({ error: { message: "upstream crashed", type: "server_error", code: "server_error" } }) }]
    }
    const config = fastRetry({ request: { maxRetries: 1 }, server: { maxRetries: 2 } })
    const h = yield* harness(() => midStreamError, { config })
    const { result } = yield* h.provide(processStep())
    const attempts = attemptsOf(h.events)
    expect(attempts.map((a) => [a.phase, a.scope, a.kind, a.maxRetries, a.delayMs])).toEqual([
      ["stream", "live-step", "server", 2, FAST_INITIAL_MS.server],
      ["stream", "live-step", "server", 2, FAST_INITIAL_MS.server * 2]
    ])
    expect(h.server.requests.length).toBe(3)
    expect(result.outcome.type).toBe("error")
  }))
})

describe("terminal errors are not retried", () => {
  it.live.each([401, 400])("HTTP %d: one request, a terminal event, the step records the error", (status) => Effect.gen(function* () {
    const h = yield* harness([httpError(status), textStream("never sent")], { config: fastRetry() })
    const { result } = yield* h.provide(processStep())
    expect(h.server.requests.length).toBe(1)
    expect(attemptsOf(h.events)).toEqual([])
    const terminal = terminalsOf(h.events)
    expect(terminal.length).toBe(1)
    expect(terminal[0]!.kind).toBe("terminal")
    expect(result.outcome.type).toBe("error")
    if (result.outcome.type === "error") expect(result.outcome.error.status).toBe(status)
    expect(result.message.error?.status).toBe(status)
  }))
})

describe("connection resets", () => {
  it.live("a reset before the first byte is a network error, retried in the request phase", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "reset" }, textStream(ANSWER)], { config: fastRetry() })
    const { result } = yield* h.provide(processStep())
    expect(h.server.requests.length).toBe(2)
    expect(h.server.requests[0]!.outcome).toBe("reset")
    expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([["request", "network", 1, FAST_INITIAL_MS.request]])
    expect(textOf(result.message)).toBe(ANSWER)
  }))

  it.live("a reset mid-text replays the step; the failed attempt is stored excluded, nothing is sent twice", () => Effect.gen(function* () {
    const NARRATION = "Let me list the files in the project."
    const { tool, calls } = countingTool()
    const script: Array<ScriptedResponse> = [
      { ...textStream(NARRATION, { chunkSize: 4 }), resetAfterChunks: 3 },
      toolCallStream("bash", { command: "ls" }, { text: NARRATION }),
      textStream("Done.")
    ]
    const h = yield* harness(script, { config: fastRetry(), tools: [tool] })
    const { report, stored } = yield* h.provide(
      Effect.gen(function* () {
        const r = yield* runLoop()
        return { ...r, stored: yield* (yield* SessionStore).messages("s") }
      })
    )
    expect(report.reason).toBe("final")
    expect(h.server.requests.length).toBe(3)
    expect(h.server.requests[0]!.outcome).toBe("reset")
    expect(calls.length).toBe(1)
    // The replay sends the same request again: the partial reply is not in it.
    expect(h.server.requests[1]!.body.messages).toEqual(h.server.requests[0]!.body.messages)
    // The request after the replayed step carries the narration once.
    expect(occurrences(JSON.stringify(h.server.requests[2]!.body.messages), "Let me list")).toBe(1)

    const assistants = stored.filter((m) => m.role === "assistant")
    const replayed = assistants.filter((m) => m.excluded === "replayed")
    expect(replayed.length).toBe(1)
    expect(replayed[0]!.error?.phase).toBe("stream")
    expect(NARRATION.startsWith(textOf(replayed[0]!))).toBe(true)
    expect(textOf(replayed[0]!).length).toBeGreaterThan(0)
    const live = assistants.filter((m) => m.excluded === undefined)
    expect(live.map((m) => textOf(m))).toEqual([NARRATION, "Done."])
    expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt])).toEqual([["stream", "network", 1]])
  }))

  it.live("what a replayed attempt streamed is metered: the provider billed it though it left the history", () => Effect.gen(function* () {
    // Words that never repeat: repeated text would trip the repetition guard instead.
    let seed = 7
    const letter = () => String.fromCharCode(97 + ((seed = (seed * 48271) % 2147483647) % 26))
    const LONG = Array.from({ length: 500 }, () => Array.from({ length: 5 }, letter).join("")).join(" ")
    const usage = { prompt_tokens: 10, completion_tokens: 2 }
    const script: Array<ScriptedResponse> = [{ ...textStream(LONG, { chunkSize: 40 }), resetAfterChunks: 50 }, textStream("Done.", { usage })]
    const h = yield* harness(script, { config: fastRetry() })
    const { report } = yield* h.provide(runLoop())
    expect(h.server.requests[0]!.outcome).toBe("reset")
    expect(report.reason).toBe("final")
    expect(report.stepsUsed).toBe(1)
    // At most 50 chunks of 40 characters were streamed before the reset: about 500 tokens, estimated.
    expect(report.tokens.total).toBeGreaterThan(12 + 300)
    expect(report.tokens.estimated).toBe(true)
  }))

  // Over the OpenAI protocol the tool call is only finalized when the body ends (see
  // fault-harness.ts), so the failure after it is injected right behind the real HTTP stream.
  it.live("a reset after a tool call is not replayed: the tool ran once and the step records the error", () => Effect.gen(function* () {
    const { tool, calls } = countingTool()
    const call = toolCallStream("bash", { command: "rm -rf build" }, { text: "Cleaning up." })
    const h = yield* faultHarness([call, call, textStream("never sent")], { config: fastRetry(), tools: [tool], decorate: cutAfterToolCall })
    const { result, stored } = yield* h.provide(processStep({ messages: [{ role: "user", text: "go" }], tools: [tool.spec] }))
    expect(calls).toEqual([{ command: "rm -rf build" }])
    expect(h.server.requests.length).toBe(1)
    expect(attemptsOf(h.events)).toEqual([])
    expect(terminalsOf(h.events)).toEqual([])
    expect(result.outcome.type).toBe("error")
    expect(result.message.error?.causes).toContain("ECONNRESET")
    expect(result.message.parts.filter((p) => p.type === "tool").map((p) => p.state)).toEqual(["completed"])
    // Recorded as the step's reply, not set aside.
    expect(stored.filter((m) => m.role === "assistant").map((m) => m.excluded)).toEqual([undefined])
  }))

  it.live("a reset while a tool call's arguments stream is replayed (the tool has not run); it then runs once", () => Effect.gen(function* () {
    const { tool, calls } = countingTool()
    const call = toolCallStream("bash", { command: "ls -la src" }, { text: "Listing.", pieces: 4 })
    const h = yield* harness([{ ...call, resetAfterChunks: 3 }, call], { config: fastRetry(), tools: [tool] })
    const { result } = yield* h.provide(processStep({ messages: [{ role: "user", text: "go" }], tools: [tool.spec] }))
    expect(h.server.requests.length).toBe(2)
    expect(h.server.requests[0]!.outcome).toBe("reset")
    expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt])).toEqual([["stream", "network", 1]])
    expect(calls).toEqual([{ command: "ls -la src" }])
    expect(result.outcome.type).toBe("continue")
    expect(result.message.error).toBeUndefined()
  }))
})

it.live("a stall past the chunk timeout is a stream error, retried under the stream budget", () => Effect.gen(function* () {
  const stalled: ScriptedResponse = { ...textStream(ANSWER, { chunkSize: 5 }), stallAfterChunks: 2, stallMs: 10_000 }
  const config = fastRetry({ stream: { maxRetries: 3 } }, { chunkTimeoutMs: 200 })
  const h = yield* harness([stalled, textStream(ANSWER)], { config })
  const started = Date.now()
  const { result, stored } = yield* h.provide(processStep())
  expect(Date.now() - started).toBeLessThan(5_000)
  yield* Effect.promise(() => h.server.requests[0]!.done)
  expect(h.server.requests[0]!.closedEarly).toBe(true)
  expect(attemptsOf(h.events).map((a) => [a.phase, a.scope, a.kind, a.attempt, a.maxRetries, a.delayMs])).toEqual([
    ["stream", "live-step", "stream", 1, 3, FAST_INITIAL_MS.stream]
  ])
  expect(textOf(result.message)).toBe(ANSWER)
  expect(stored.filter((m) => m.role === "assistant" && m.excluded === "replayed").length).toBe(1)
}))

describe("OpenAI server_is_overloaded", () => {
  it.live.each([503, 500] as const)("HTTP %d: three silent immediate retries, then the normal budget", (status) => Effect.gen(function* () {
    const script = [overloaded(status), overloaded(status), overloaded(status), overloaded(status), textStream(ANSWER)]
    const h = yield* harness(script, { config: fastRetry() })
    const { result } = yield* h.provide(processStep())
    expect(h.server.requests.length).toBe(5)
    // Only the fourth failure is announced, as the first counted retry of the request budget.
    expect(attemptsOf(h.events).map((a) => [a.kind, a.attempt, a.delayMs])).toEqual([["server", 1, FAST_INITIAL_MS.request]])
    expect(textOf(result.message)).toBe(ANSWER)
  }))

  it.effect("three overloads then success: no attempt event, no wait", () => Effect.gen(function* () {
    const script = [overloaded(503), overloaded(503), overloaded(503), textStream(ANSWER)]
    // On the TestClock, which never moves here, any counted retry (a 1.5 s wait) would never end.
    const h = yield* harness(script, { config: fastRetry({ request: { initialDelayMs: 1_500 } }) })
    const step = yield* Effect.forkChild(h.provide(processStep()))
    yield* untilReal(() => step.pollUnsafe() !== undefined, "the step ends without the clock moving", 20_000)
    const { result } = yield* Fiber.join(step)
    expect(h.server.requests.length).toBe(4)
    expect(attemptsOf(h.events)).toEqual([])
    expect(textOf(result.message)).toBe(ANSWER)
  }))

  it.live("a subagent gets no silent retries", () => Effect.gen(function* () {
    const config = (c: LoopguardConfig): LoopguardConfig => {
      const base = fastRetry()(c)
      return { ...base, loop: { ...base.loop, role: "subagent" } }
    }
    const h = yield* harness([overloaded(503), textStream(ANSWER)], { config })
    yield* h.provide(processStep())
    expect(attemptsOf(h.events).map((a) => [a.kind, a.attempt])).toEqual([["server", 1]])
  }))
})

describe("prefill rejection", () => {
  const rejection = httpError(400, { body: { error: { message: "This model does not support assistant message prefill.", type: "invalid_request_error" } } })
  const prefilled = { messages: [{ role: "user" as const, text: "go" }, { role: "assistant" as const, parts: [{ type: "text" as const, text: "Sure, here" }] }], tools: [] }

  it.live("one retry without the trailing assistant message", () => Effect.gen(function* () {
    const h = yield* harness([rejection, textStream(ANSWER)], { config: fastRetry() })
    const { result } = yield* h.provide(processStep(prefilled))
    expect(h.server.requests.length).toBe(2)
    const [first, second] = h.server.requests.map((r) => r.body.messages as Array<{ role: string; content: unknown }>)
    expect(first!.at(-1)!.role).toBe("assistant")
    expect(second!.at(-1)!.role).toBe("user")
    expect(second).toEqual(first!.slice(0, -1))
    expect(attemptsOf(h.events).length).toBe(1)
    expect(terminalsOf(h.events)).toEqual([])
    expect(textOf(result.message)).toBe(ANSWER)
  }))

  it.live("only one such retry: a second rejection ends the step", () => Effect.gen(function* () {
    const h = yield* harness([rejection, rejection, textStream("never sent")], { config: fastRetry() })
    const { result } = yield* h.provide(processStep(prefilled))
    expect(h.server.requests.length).toBe(2)
    expect(result.outcome.type).toBe("error")
    expect(terminalsOf(h.events).length).toBe(1)
  }))
})

it.live("two retry sites with their own counts; the session.status number runs on across phases", () => Effect.gen(function* () {
  const script: Array<ScriptedResponse> = [
    httpError(500),
    { ...textStream(ANSWER, { chunkSize: 4 }), resetAfterChunks: 2 },
    textStream(ANSWER)
  ]
  const h = yield* harness(script, { config: fastRetry() })
  const { result } = yield* h.provide(processStep())
  expect(h.server.requests.length).toBe(3)
  expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([
    ["request", "server", 1, FAST_INITIAL_MS.request],
    // The stream-phase site counts its own retries: its first replay, first backoff.
    ["stream", "network", 1, FAST_INITIAL_MS.network]
  ])
  expect(h.events.filter((e) => e.type === "session.status" && e.status === "retry").map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2])
  expect(result.attempts).toBe(3)
  expect(textOf(result.message)).toBe(ANSWER)
}))
