/**
 * Issue 11 items 5–7 over HTTP (seed 000's MiMo details): length continuation only for steps
 * without a client tool call, two retry sites with their own counts, and the session.status retry
 * number that runs across steps until the session goes idle. Judged from what the scripted server
 * received and from the published events.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, type LoopguardEvent, type ToolDefinition } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness } from "./harness.js"
import { fastRetry, httpError, processStep } from "./retry-faults/helpers.js"

const runTurn = (prompt: string) => Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "m", prompt }) })

const readTool = (): { tool: ToolDefinition; ran: Array<unknown> } => {
  const ran: Array<unknown> = []
  return {
    ran,
    tool: {
      spec: { name: "read", description: "read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
      run: async (input) => (ran.push(input), { state: "completed", output: `contents of ${String(input["path"])}` })
    }
  }
}

const statusAttempts = (events: ReadonlyArray<LoopguardEvent>) =>
  events.filter((e) => e.type === "session.status").map((e) => `${(e as { status: string }).status}:${(e as { attempt: number }).attempt}`)

describe("length continuation only without a client tool call (issue 11 item 5)", () => {
  test("four tool steps that end in `length` run their tools and spend no continuation budget", async () => {
    const r = readTool()
    const script: Array<ScriptedResponse> = [
      ...[1, 2, 3, 4].map((i) => toolCallStream("read", { path: `f${i}.ts` }, { id: `c${i}`, finish: "length" })),
      textStream("All four files read.")
    ]
    const h = await makeHarness(script, { tools: [r.tool] })
    try {
      const result = await h.run(runTurn("Read the files"))
      expect(result.report.reason).toBe("final")
      expect(r.ran).toHaveLength(4)
      expect(h.server.requests.length).toBe(5)
      for (const req of h.server.requests) expect(JSON.stringify(req.body.messages)).not.toContain("cut off at the output length limit")
      expect(result.report.retries["length-continue"] ?? 0).toBe(0)
    } finally {
      await h.close()
    }
  }, 30_000)

  test("a text-only reply that ends in `length` still gets its continuation", async () => {
    const h = await makeHarness([textStream("The first half of the ans", { finish: "length" }), textStream("wer, and the rest.")])
    try {
      const result = await h.run(runTurn("Explain"))
      expect(result.report.reason).toBe("final")
      expect(result.report.retries["length-continue"]).toBe(1)
      expect(h.server.requests.length).toBe(2)
      expect(JSON.stringify(h.server.requests[1]!.body.messages)).toContain("cut off at the output length limit")
    } finally {
      await h.close()
    }
  }, 30_000)
})

describe("request-phase and stream-phase retries count separately (issue 11 item 6)", () => {
  test("four request-phase 500s leave all five stream replays", async () => {
    const answer = "Here is the full answer, streamed in several pieces."
    const script: Array<ScriptedResponse> = [
      ...Array.from({ length: 4 }, () => httpError(500)),
      ...Array.from({ length: 5 }, () => ({ ...textStream(answer, { chunkSize: 6 }), resetAfterChunks: 2 })),
      textStream(answer)
    ]
    const h = await makeHarness(script, { config: fastRetry({ request: { maxRetries: 4 }, network: { mode: "bounded", maxRetries: 5, initialDelayMs: 5, maxDelayMs: 5 } }) })
    try {
      const { result } = await h.run(processStep())
      expect(result.outcome.type).toBe("continue")
      expect(h.server.requests.length).toBe(10)
      const attempts = h.events.filter((e) => e.type === "session.retry.attempt").map((e) => `${(e as { phase: string }).phase}:${(e as { attempt: number }).attempt}`)
      expect(attempts).toEqual(["request:1", "request:2", "request:3", "request:4", "stream:1", "stream:2", "stream:3", "stream:4", "stream:5"])
    } finally {
      await h.close()
    }
  }, 30_000)
})

describe("the session.status retry number (issue 11 item 7)", () => {
  test("runs on across steps and resets only when the session goes idle", async () => {
    const r = readTool()
    const script: Array<ScriptedResponse> = [httpError(500), toolCallStream("read", { path: "a" }), httpError(500), textStream("Done."), httpError(500), textStream("Again.")]
    const h = await makeHarness(script, { tools: [r.tool], config: fastRetry() })
    try {
      await h.run(runTurn("first"))
      await h.run(runTurn("second"))
      expect(statusAttempts(h.events)).toEqual(["busy:0", "retry:1", "retry:2", "idle:0", "busy:0", "retry:1", "idle:0"])
    } finally {
      await h.close()
    }
  }, 30_000)
})


describe("per-request structured-output retryCount (issue 11 item 9)", () => {
  const ask = (retryCount: number | undefined) =>
    Effect.gen(function* () {
      return yield* (yield* RunLoop).run({
        sessionId: "so",
        prompt: "Give the answer as JSON",
        structuredOutput: { schema: { type: "object", properties: { answer: { type: "number" } } }, ...(retryCount !== undefined ? { retryCount } : {}) }
      })
    })
  const prose = () => Array.from({ length: 6 }, () => textStream("The answer is 42."))

  test("retryCount 0: no reminder, the run ends at once", async () => {
    const h = await makeHarness(prose())
    try {
      const result = await h.run(ask(0))
      expect(result.report.reason).toBe("structured_output")
      expect(h.server.requests.length).toBe(1)
    } finally {
      await h.close()
    }
  }, 30_000)

  test("retryCount 4 overrides the configured 2: four reminders, five requests", async () => {
    const h = await makeHarness(prose())
    try {
      const result = await h.run(ask(4))
      expect(result.report.reason).toBe("structured_output")
      expect(h.server.requests.length).toBe(5)
    } finally {
      await h.close()
    }
  }, 30_000)
})
