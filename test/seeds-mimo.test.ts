/**
 * MiMo-style provider details over HTTP: length continuation only for steps
 * without a client tool call, two retry sites with their own counts, and the session.status retry
 * number that runs across steps until the session goes idle. Judged from what the scripted server
 * received and from the published events.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, type LoopguardEvent, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
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

describe("length continuation only without a client tool call", () => {
  it.live("four tool steps that end in `length` run their tools and spend no continuation budget", () => Effect.gen(function* () {
    const r = readTool()
    const script: Array<ScriptedResponse> = [
      ...[1, 2, 3, 4].map((i) => toolCallStream("read", { path: `f${i}.ts` }, { id: `c${i}`, finish: "length" })),
      textStream("All four files read.")
    ]
    const h = yield* harness(script, { tools: [r.tool] })
    const result = yield* h.provide(runTurn("Read the files"))
    expect(result.report.reason).toBe("final")
    expect(r.ran).toHaveLength(4)
    expect(h.server.requests.length).toBe(5)
    for (const req of h.server.requests) expect(JSON.stringify(req.body.messages)).not.toContain("cut off at the output length limit")
    expect(result.report.retries["length-continue"] ?? 0).toBe(0)
  }), 30_000)

  it.live("a text-only reply that ends in `length` still gets its continuation", () => Effect.gen(function* () {
    const h = yield* harness([textStream("The first half of the ans", { finish: "length" }), textStream("wer, and the rest.")])
    const result = yield* h.provide(runTurn("Explain"))
    expect(result.report.reason).toBe("final")
    expect(result.report.retries["length-continue"]).toBe(1)
    expect(h.server.requests.length).toBe(2)
    expect(JSON.stringify(h.server.requests[1]!.body.messages)).toContain("cut off at the output length limit")
  }), 30_000)
})

describe("request-phase and stream-phase retries count separately", () => {
  it.live("four request-phase 500s leave all five stream replays", () => Effect.gen(function* () {
    const answer = "Here is the full answer, streamed in several pieces."
    const script: Array<ScriptedResponse> = [
      ...Array.from({ length: 4 }, () => httpError(500)),
      ...Array.from({ length: 5 }, () => ({ ...textStream(answer, { chunkSize: 6 }), resetAfterChunks: 2 })),
      textStream(answer)
    ]
    const h = yield* harness(script, { config: fastRetry({ request: { maxRetries: 4 }, network: { mode: "bounded", maxRetries: 5, initialDelayMs: 5, maxDelayMs: 5 } }) })
    const { result } = yield* h.provide(processStep())
    expect(result.outcome.type).toBe("continue")
    expect(h.server.requests.length).toBe(10)
    const attempts = h.events.filter((e) => e.type === "session.retry.attempt").map((e) => `${(e as { phase: string }).phase}:${(e as { attempt: number }).attempt}`)
    expect(attempts).toEqual(["request:1", "request:2", "request:3", "request:4", "stream:1", "stream:2", "stream:3", "stream:4", "stream:5"])
  }), 30_000)
})

describe("the session.status retry number", () => {
  it.live("runs on across steps and resets only when the session goes idle", () => Effect.gen(function* () {
    const r = readTool()
    const script: Array<ScriptedResponse> = [httpError(500), toolCallStream("read", { path: "a" }), httpError(500), textStream("Done."), httpError(500), textStream("Again.")]
    const h = yield* harness(script, { tools: [r.tool], config: fastRetry() })
    yield* h.provide(runTurn("first"))
    yield* h.provide(runTurn("second"))
    expect(statusAttempts(h.events)).toEqual(["busy:0", "retry:1", "retry:2", "idle:0", "busy:0", "retry:1", "idle:0"])
  }), 30_000)
})


describe("per-request structured-output retryCount", () => {
  const ask = (retryCount: number | undefined) =>
    Effect.gen(function* () {
      return yield* (yield* RunLoop).run({
        sessionId: "so",
        prompt: "Give the answer as JSON",
        structuredOutput: { schema: { type: "object", properties: { answer: { type: "number" } } }, ...(retryCount !== undefined ? { retryCount } : {}) }
      })
    })
  const prose = () => Array.from({ length: 6 }, () => textStream("The answer is 42."))

  it.live("retryCount 0: no reminder, the run ends at once", () => Effect.gen(function* () {
    const h = yield* harness(prose())
    const result = yield* h.provide(ask(0))
    expect(result.report.reason).toBe("structured_output")
    expect(h.server.requests.length).toBe(1)
  }), 30_000)

  it.live("retryCount 4 overrides the configured 2: four reminders, five requests", () => Effect.gen(function* () {
    const h = yield* harness(prose())
    const result = yield* h.provide(ask(4))
    expect(result.report.reason).toBe("structured_output")
    expect(h.server.requests.length).toBe(5)
  }), 30_000)
})
