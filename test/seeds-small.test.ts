/**
 * Smaller retry details over HTTP: the top-level `retry.jitterRatio`, a
 * provider's retryable statuses (404 for some adapters) and a provider's own chunk timeout.
 * Judged from the requests the scripted server received and the published retry events.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import type { LoopguardConfig } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness, noRetries } from "./harness.js"
import { attemptsOf, httpError, processStep } from "./retry-faults/helpers.js"

const ANSWER = "All good."

describe("retry jitter, retryable statuses and chunk timeout per provider", () => {
  it.live("the top-level retry.jitterRatio applies to every budget that sets none: 0 gives exact delays", () => Effect.gen(function* () {
    const config = (c: LoopguardConfig): LoopguardConfig => ({ ...c, retry: { jitterRatio: 0, request: { initialDelayMs: 37, maxDelayMs: 1000 } } })
    const h = yield* harness([httpError(500), httpError(500), textStream(ANSWER)], { config })
    const { result } = yield* h.provide(processStep())
    expect(result.outcome.type).toBe("continue")
    expect(attemptsOf(h.events).map((a) => a.delayMs)).toEqual([37, 74])
  }), 30_000)

  it.live("a provider's retryableStatuses makes its 404 a retried server error; without it a 404 is terminal", () => Effect.gen(function* () {
    const retried = yield* harness([httpError(404), textStream(ANSWER)], {
      config: (c) => ({ ...c, retry: { request: { initialDelayMs: 5, maxDelayMs: 5 } }, provider: { scripted: { retry: { retryableStatuses: [404] } } } })
    })
    const { result: retriedResult } = yield* retried.provide(processStep())
    expect(retriedResult.outcome.type).toBe("continue")
    expect(retried.server.requests.length).toBe(2)
    expect(attemptsOf(retried.events)[0]).toMatchObject({ kind: "server" })
    const terminal = yield* harness([httpError(404), textStream(ANSWER)], { config: (c) => ({ ...c, provider: { other: { retry: { retryableStatuses: [404] } } } }) })
    const { result: terminalResult } = yield* terminal.provide(processStep())
    expect(terminalResult.outcome.type).toBe("error")
    expect(terminal.server.requests.length).toBe(1)
  }), 30_000)

  it.live("a provider's own chunkTimeoutMs ends a silent stream; the global one stays as it is", () => Effect.gen(function* () {
    const stalled = { ...textStream("partial answer that then goes quiet", { chunkSize: 6 }), stallAfterChunks: 2 }
    const h = yield* harness([stalled], {
      config: (c) => ({ ...noRetries(c), provider: { scripted: { chunkTimeoutMs: 300 } } })
    })
    const { result } = yield* h.provide(processStep())
    expect(result.outcome.type).toBe("error")
    expect(result.outcome.type === "error" ? result.outcome.error.message : "").toContain("no stream chunk for 300 ms")
  }), 30_000)
})
