/**
 * Issue 11 item 9 over HTTP (seed 000's smaller details): the top-level `retry.jitterRatio`, a
 * provider's retryable statuses (404 for some adapters) and a provider's own chunk timeout.
 * Judged from the requests the scripted server received and the published retry events.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import type { LoopguardConfig } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { makeHarness, noRetries } from "./harness.js"
import { attemptsOf, httpError, processStep } from "./retry-faults/helpers.js"

const ANSWER = "All good."

describe("retry knobs from seed 000 (issue 11 item 9)", () => {
  test("the top-level retry.jitterRatio applies to every budget that sets none: 0 gives exact delays", async () => {
    const config = (c: LoopguardConfig): LoopguardConfig => ({ ...c, retry: { jitterRatio: 0, request: { initialDelayMs: 37, maxDelayMs: 1000 } } })
    const h = await makeHarness([httpError(500), httpError(500), textStream(ANSWER)], { config })
    try {
      const { result } = await h.run(processStep())
      expect(result.outcome.type).toBe("continue")
      expect(attemptsOf(h.events).map((a) => a.delayMs)).toEqual([37, 74])
    } finally {
      await h.close()
    }
  }, 30_000)

  test("a provider's retryableStatuses makes its 404 a retried server error; without it a 404 is terminal", async () => {
    const retried = await makeHarness([httpError(404), textStream(ANSWER)], {
      config: (c) => ({ ...c, retry: { request: { initialDelayMs: 5, maxDelayMs: 5 } }, provider: { scripted: { retry: { retryableStatuses: [404] } } } })
    })
    try {
      const { result } = await retried.run(processStep())
      expect(result.outcome.type).toBe("continue")
      expect(retried.server.requests.length).toBe(2)
      expect(attemptsOf(retried.events)[0]).toMatchObject({ kind: "server" })
    } finally {
      await retried.close()
    }
    const terminal = await makeHarness([httpError(404), textStream(ANSWER)], { config: (c) => ({ ...c, provider: { other: { retry: { retryableStatuses: [404] } } } }) })
    try {
      const { result } = await terminal.run(processStep())
      expect(result.outcome.type).toBe("error")
      expect(terminal.server.requests.length).toBe(1)
    } finally {
      await terminal.close()
    }
  }, 30_000)

  test("a provider's own chunkTimeoutMs ends a silent stream; the global one stays as it is", async () => {
    const stalled = { ...textStream("partial answer that then goes quiet", { chunkSize: 6 }), stallAfterChunks: 2 }
    const h = await makeHarness([stalled], {
      config: (c) => ({ ...noRetries(c), provider: { scripted: { chunkTimeoutMs: 300 } } })
    })
    try {
      const { result } = await h.run(processStep())
      expect(result.outcome.type).toBe("error")
      expect(result.outcome.type === "error" ? result.outcome.error.message : "").toContain("no stream chunk for 300 ms")
    } finally {
      await h.close()
    }
  }, 30_000)
})
