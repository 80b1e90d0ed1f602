/**
 * The retry coordinator against a failing HTTP server (SPEC §5): every fault goes through the real
 * AI SDK provider, SessionProcessor and (where the next request matters) RunLoop. Budgets are made
 * small and jitter-free by `fastRetry`; each budget has its own initial delay, so an attempt
 * event's `delayMs` shows which budget granted the retry.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { RunLoop, SessionStore, type LoopguardConfig, type ToolDefinition } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness, type Harness } from "./harness.js"
import { cutAfterToolCall, makeFaultHarness } from "./retry-faults/fault-harness.js"
import { attemptsOf, FAST_INITIAL_MS, fastRetry, httpError, occurrences, overloaded, processStep, terminalsOf } from "./retry-faults/helpers.js"

const runLoop = (prompt = "List the files") =>
  Effect.gen(function* () {
    return yield* (yield* RunLoop).run({ sessionId: "s", prompt })
  })

const withHarness = async <A>(
  script: Parameters<typeof makeHarness>[0],
  options: Parameters<typeof makeHarness>[1],
  body: (h: Harness) => Promise<A>
): Promise<A> => {
  const h = await makeHarness(script, options)
  try {
    return await body(h)
  } finally {
    await h.close()
  }
}

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
  test("retry-after: 1 → one retry after 1000 ms, kind rate_limit, then the answer", async () => {
    await withHarness([httpError(429, { headers: { "retry-after": "1" } }), textStream(ANSWER)], { config: fastRetry() }, async (h) => {
      const started = Date.now()
      const { result } = await h.run(processStep())
      const elapsed = Date.now() - started
      expect(h.server.requests.length).toBe(2)
      const attempts = attemptsOf(h.events)
      expect(attempts.map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([["request", "rate_limit", 1, 1000]])
      // The wait really happened (not only announced).
      expect(elapsed).toBeGreaterThanOrEqual(950)
      expect(result.outcome.type).toBe("continue")
      expect(result.attempts).toBe(2)
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })

  // A request-phase 429 is governed by the `request` budget (SPEC order: request phase first), so
  // the hint is clamped to request.maxDelayMs, not rateLimit.maxDelayMs.
  test.each([
    { name: "retry-after-ms is milliseconds", headers: { "retry-after-ms": "250" }, requestMax: 2_000, expected: 250 },
    { name: "retry-after-ms wins over retry-after", headers: { "retry-after-ms": "120", "retry-after": "5" }, requestMax: 2_000, expected: 120 },
    { name: "a hint above the request budget's max is clamped to it", headers: { "retry-after": "1" }, requestMax: 300, expected: 300 },
    { name: "a hint below 100 ms is raised to 100 ms", headers: { "retry-after-ms": "5" }, requestMax: 2_000, expected: 100 }
  ])("$name", async ({ headers, requestMax, expected }) => {
    const config = fastRetry({ request: { maxDelayMs: requestMax }, rateLimit: { maxDelayMs: 60_000 } })
    await withHarness([httpError(429, { headers }), textStream(ANSWER)], { config }, async (h) => {
      const { result } = await h.run(processStep())
      expect(attemptsOf(h.events).map((a) => [a.kind, a.delayMs])).toEqual([["rate_limit", expected]])
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })
})

describe("server errors (5xx)", () => {
  // The request budget allows fewer retries than the server budget's default 8: the request count
  // shows which one governed. Both counts are tried so neither can pass by coincidence.
  test.each([1, 3])("a request-phase 500 uses the request budget (request.maxRetries = %d), then fails clearly", async (maxRetries) => {
    const config = fastRetry({ request: { maxRetries } })
    const always500: ScriptedResponse = httpError(500, { body: { error: { message: "upstream crashed", type: "server_error" } } })
    await withHarness(() => always500, { config }, async (h) => {
      const { report } = await h.run(runLoop())
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
    })
  })

  test("a request-phase 500 with retry.server's limit set: the server budget governs it (count and delays)", async () => {
    const config = fastRetry({ request: { maxRetries: 4 }, server: { maxRetries: 2 } })
    const always500: ScriptedResponse = httpError(500, { body: { error: { message: "upstream crashed", type: "server_error" } } })
    await withHarness(() => always500, { config }, async (h) => {
      const { report } = await h.run(runLoop())
      expect(h.server.requests.length).toBe(3)
      const attempts = attemptsOf(h.events)
      expect(attempts.map((a) => [a.phase, a.kind, a.maxRetries])).toEqual([["request", "server", 2], ["request", "server", 2]])
      expect(attempts.map((a) => a.delayMs)).toEqual([FAST_INITIAL_MS.server, FAST_INITIAL_MS.server * 2])
      expect(report.reason).toBe("model_error")
    })
  })

  test("the deadline stops the retries before the count does, and the error says so", async () => {
    // Scaled so that a loaded machine's slow requests still leave room for two retries.
    const config = fastRetry({ request: { maxRetries: 50, deadlineMs: 1_000, initialDelayMs: 100 } })
    await withHarness(() => httpError(503), { config }, async (h) => {
      const { report } = await h.run(runLoop())
      const attempts = attemptsOf(h.events)
      // 100 + 200 + 400 ms fit in 1 s; with the next 800 ms wait the step would pass the deadline.
      expect(attempts.length).toBeGreaterThanOrEqual(2)
      expect(attempts.length).toBeLessThanOrEqual(3)
      expect(attempts.reduce((sum, a) => sum + a.delayMs, 0)).toBeLessThanOrEqual(1_000)
      expect(h.server.requests.length).toBe(attempts.length + 1)
      expect(report.reason).toBe("model_error")
      expect(report.error?.message).toMatch(/HTTP 503; gave up after \d retr(y|ies): deadline/)
    })
  })

  test("a stream-phase server error uses the server budget, not the request or stream budget", async () => {
    const midStreamError: ScriptedResponse = {
      type: "stream",
      chunks: [{ text: "Working" }, { raw: JSON.stringify({ error: { message: "upstream crashed", type: "server_error", code: "server_error" } }) }]
    }
    const config = fastRetry({ request: { maxRetries: 1 }, server: { maxRetries: 2 } })
    await withHarness(() => midStreamError, { config }, async (h) => {
      const { result } = await h.run(processStep())
      const attempts = attemptsOf(h.events)
      expect(attempts.map((a) => [a.phase, a.scope, a.kind, a.maxRetries, a.delayMs])).toEqual([
        ["stream", "live-step", "server", 2, FAST_INITIAL_MS.server],
        ["stream", "live-step", "server", 2, FAST_INITIAL_MS.server * 2]
      ])
      expect(h.server.requests.length).toBe(3)
      expect(result.outcome.type).toBe("error")
    })
  })
})

describe("terminal errors are not retried", () => {
  test.each([401, 400])("HTTP %d: one request, a terminal event, the step records the error", async (status) => {
    await withHarness([httpError(status), textStream("never sent")], { config: fastRetry() }, async (h) => {
      const { result } = await h.run(processStep())
      expect(h.server.requests.length).toBe(1)
      expect(attemptsOf(h.events)).toEqual([])
      const terminal = terminalsOf(h.events)
      expect(terminal.length).toBe(1)
      expect(terminal[0]!.kind).toBe("terminal")
      expect(result.outcome.type).toBe("error")
      if (result.outcome.type === "error") expect(result.outcome.error.status).toBe(status)
      expect(result.message.error?.status).toBe(status)
    })
  })
})

describe("connection resets", () => {
  test("a reset before the first byte is a network error, retried in the request phase", async () => {
    await withHarness([{ type: "reset" }, textStream(ANSWER)], { config: fastRetry() }, async (h) => {
      const { result } = await h.run(processStep())
      expect(h.server.requests.length).toBe(2)
      expect(h.server.requests[0]!.outcome).toBe("reset")
      expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([["request", "network", 1, FAST_INITIAL_MS.request]])
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })

  test("a reset mid-text replays the step; the failed attempt is stored excluded, nothing is sent twice", async () => {
    const NARRATION = "Let me list the files in the project."
    const { tool, calls } = countingTool()
    const script: Array<ScriptedResponse> = [
      { ...textStream(NARRATION, { chunkSize: 4 }), resetAfterChunks: 3 },
      toolCallStream("bash", { command: "ls" }, { text: NARRATION }),
      textStream("Done.")
    ]
    await withHarness(script, { config: fastRetry(), tools: [tool] }, async (h) => {
      const { report, stored } = await h.run(
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
    })
  })

  // Over the OpenAI protocol the tool call is only finalized when the body ends (see
  // fault-harness.ts), so the failure after it is injected right behind the real HTTP stream.
  test("a reset after a tool call is not replayed: the tool ran once and the step records the error", async () => {
    const { tool, calls } = countingTool()
    const call = toolCallStream("bash", { command: "rm -rf build" }, { text: "Cleaning up." })
    const h = await makeFaultHarness([call, call, textStream("never sent")], { config: fastRetry(), tools: [tool], decorate: cutAfterToolCall })
    try {
      const { result, stored } = await h.run(processStep({ messages: [{ role: "user", text: "go" }], tools: [tool.spec] }))
      expect(calls).toEqual([{ command: "rm -rf build" }])
      expect(h.server.requests.length).toBe(1)
      expect(attemptsOf(h.events)).toEqual([])
      expect(terminalsOf(h.events)).toEqual([])
      expect(result.outcome.type).toBe("error")
      expect(result.message.error?.causes).toContain("ECONNRESET")
      expect(result.message.parts.filter((p) => p.type === "tool").map((p) => p.state)).toEqual(["completed"])
      // Recorded as the step's reply, not set aside.
      expect(stored.filter((m) => m.role === "assistant").map((m) => m.excluded)).toEqual([undefined])
    } finally {
      await h.close()
    }
  })

  test("a reset while a tool call's arguments stream is replayed (the tool has not run); it then runs once", async () => {
    const { tool, calls } = countingTool()
    const call = toolCallStream("bash", { command: "ls -la src" }, { text: "Listing.", pieces: 4 })
    await withHarness([{ ...call, resetAfterChunks: 3 }, call], { config: fastRetry(), tools: [tool] }, async (h) => {
      const { result } = await h.run(processStep({ messages: [{ role: "user", text: "go" }], tools: [tool.spec] }))
      expect(h.server.requests.length).toBe(2)
      expect(h.server.requests[0]!.outcome).toBe("reset")
      expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt])).toEqual([["stream", "network", 1]])
      expect(calls).toEqual([{ command: "ls -la src" }])
      expect(result.outcome.type).toBe("continue")
      expect(result.message.error).toBeUndefined()
    })
  })
})

test("a stall past the chunk timeout is a stream error, retried under the stream budget", async () => {
  const stalled: ScriptedResponse = { ...textStream(ANSWER, { chunkSize: 5 }), stallAfterChunks: 2, stallMs: 10_000 }
  const config = fastRetry({ stream: { maxRetries: 3 } }, { chunkTimeoutMs: 200 })
  await withHarness([stalled, textStream(ANSWER)], { config }, async (h) => {
    const started = Date.now()
    const { result, stored } = await h.run(processStep())
    expect(Date.now() - started).toBeLessThan(5_000)
    await h.server.requests[0]!.done
    expect(h.server.requests[0]!.closedEarly).toBe(true)
    expect(attemptsOf(h.events).map((a) => [a.phase, a.scope, a.kind, a.attempt, a.maxRetries, a.delayMs])).toEqual([
      ["stream", "live-step", "stream", 1, 3, FAST_INITIAL_MS.stream]
    ])
    expect(textOf(result.message)).toBe(ANSWER)
    expect(stored.filter((m) => m.role === "assistant" && m.excluded === "replayed").length).toBe(1)
  })
})

describe("OpenAI server_is_overloaded", () => {
  test.each([503, 500] as const)("HTTP %d: three silent immediate retries, then the normal budget", async (status) => {
    const script = [overloaded(status), overloaded(status), overloaded(status), overloaded(status), textStream(ANSWER)]
    await withHarness(script, { config: fastRetry() }, async (h) => {
      const { result } = await h.run(processStep())
      expect(h.server.requests.length).toBe(5)
      // Only the fourth failure is announced, as the first counted retry of the request budget.
      expect(attemptsOf(h.events).map((a) => [a.kind, a.attempt, a.delayMs])).toEqual([["server", 1, FAST_INITIAL_MS.request]])
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })

  test("three overloads then success: no attempt event, no wait", async () => {
    const script = [overloaded(503), overloaded(503), overloaded(503), textStream(ANSWER)]
    // A large request delay makes any counted retry visible in the elapsed time.
    await withHarness(script, { config: fastRetry({ request: { initialDelayMs: 1_500 } }) }, async (h) => {
      const started = Date.now()
      const { result } = await h.run(processStep())
      expect(Date.now() - started).toBeLessThan(1_200)
      expect(h.server.requests.length).toBe(4)
      expect(attemptsOf(h.events)).toEqual([])
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })

  test("a subagent gets no silent retries", async () => {
    const config = (c: LoopguardConfig): LoopguardConfig => {
      const base = fastRetry()(c)
      return { ...base, loop: { ...base.loop, role: "subagent" } }
    }
    await withHarness([overloaded(503), textStream(ANSWER)], { config }, async (h) => {
      await h.run(processStep())
      expect(attemptsOf(h.events).map((a) => [a.kind, a.attempt])).toEqual([["server", 1]])
    })
  })
})

describe("prefill rejection", () => {
  const rejection = httpError(400, { body: { error: { message: "This model does not support assistant message prefill.", type: "invalid_request_error" } } })
  const prefilled = { messages: [{ role: "user" as const, text: "go" }, { role: "assistant" as const, parts: [{ type: "text" as const, text: "Sure, here" }] }], tools: [] }

  test("one retry without the trailing assistant message", async () => {
    await withHarness([rejection, textStream(ANSWER)], { config: fastRetry() }, async (h) => {
      const { result } = await h.run(processStep(prefilled))
      expect(h.server.requests.length).toBe(2)
      const [first, second] = h.server.requests.map((r) => r.body.messages as Array<{ role: string; content: unknown }>)
      expect(first!.at(-1)!.role).toBe("assistant")
      expect(second!.at(-1)!.role).toBe("user")
      expect(second).toEqual(first!.slice(0, -1))
      expect(attemptsOf(h.events).length).toBe(1)
      expect(terminalsOf(h.events)).toEqual([])
      expect(textOf(result.message)).toBe(ANSWER)
    })
  })

  test("only one such retry: a second rejection ends the step", async () => {
    await withHarness([rejection, rejection, textStream("never sent")], { config: fastRetry() }, async (h) => {
      const { result } = await h.run(processStep(prefilled))
      expect(h.server.requests.length).toBe(2)
      expect(result.outcome.type).toBe("error")
      expect(terminalsOf(h.events).length).toBe(1)
    })
  })
})

test("two retry sites with their own counts; the session.status number runs on across phases", async () => {
  const script: Array<ScriptedResponse> = [
    httpError(500),
    { ...textStream(ANSWER, { chunkSize: 4 }), resetAfterChunks: 2 },
    textStream(ANSWER)
  ]
  await withHarness(script, { config: fastRetry() }, async (h) => {
    const { result } = await h.run(processStep())
    expect(h.server.requests.length).toBe(3)
    expect(attemptsOf(h.events).map((a) => [a.phase, a.kind, a.attempt, a.delayMs])).toEqual([
      ["request", "server", 1, FAST_INITIAL_MS.request],
      // The stream-phase site counts its own retries: its first replay, first backoff.
      ["stream", "network", 1, FAST_INITIAL_MS.network]
    ])
    expect(h.events.filter((e) => e.type === "session.status" && e.status === "retry").map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2])
    expect(result.attempts).toBe(3)
    expect(textOf(result.message)).toBe(ANSWER)
  })
})
