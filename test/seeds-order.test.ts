/**
 * Over HTTP: the order of rollback's checks (docs/rollback.md). A duplicate query is judged before it
 * runs; a useless result stops the step's remaining calls. Judged from the tools' own call logs
 * and from what the scripted server received.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const run = Effect.gen(function* () {
  const result = yield* (yield* RunLoop).run({ sessionId: "o", prompt: "Find the release date" })
  return { result, stored: yield* (yield* SessionStore).messages("o") }
})

const searchTool = (answer: (q: string) => string) => {
  const ran: Array<string> = []
  const tool: ToolDefinition = {
    spec: { name: "search", description: "web search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
    run: async (input) => (ran.push(String(input["q"])), { state: "completed", output: answer(String(input["q"])) })
  }
  return { tool, ran }
}

/** Two calls in one reply. */
const twoCalls = (a: string, b: string): ScriptedResponse => ({
  type: "stream",
  finish: "tool_calls",
  chunks: [
    { toolCall: { id: "c1", name: "search", arguments: JSON.stringify({ q: a }), pieces: 1 } },
    { toolCall: { id: "c2", name: "search", arguments: JSON.stringify({ q: b }), pieces: 1 } }
  ]
})

describe("order of rollback checks", () => {
  it.live("a query asked a third time never runs: judged before it runs, the reply rolled back; the second ask runs", () => Effect.gen(function* () {
    const s = searchTool(() => "released 2024-05-01")
    const h = yield* harness(
      [
        toolCallStream("search", { q: "release date" }, { id: "c1" }),
        toolCallStream("search", { q: "Release  Date" }, { id: "c2" }),
        toolCallStream("search", { q: "RELEASE date" }, { id: "c3" }),
        textStream("1 May 2024.")
      ],
      { tools: [s.tool] }
    )
    const { result, stored } = yield* h.provide(run)
    // Asked once more, a query is rereading (no loop yet); the third ask is the loop's evidence.
    expect(s.ran).toEqual(["release date", "Release  Date"])
    expect(result.report.reason).toBe("final")
    expect(h.server.requests.length).toBe(4)
    expect(JSON.stringify(h.server.requests[3]!.body.messages)).not.toContain("RELEASE date")
    expect(stored.some((m) => m.role === "assistant" && m.excluded === "rollback")).toBe(true)
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "rollback", detail: expect.objectContaining({ kind: "duplicate-query" }) }))
  }), 30_000)

  it.live("a useless result stops the step's remaining calls", () => Effect.gen(function* () {
    const s = searchTool((q) => (q === "broken" ? "Error executing tool search: upstream timeout" : "released 2024-05-01"))
    const h = yield* harness([twoCalls("broken", "second query"), toolCallStream("search", { q: "release date" }, { id: "c3" }), textStream("1 May 2024.")], {
      tools: [s.tool]
    })
    const { result } = yield* h.provide(run)
    expect(s.ran).toEqual(["broken", "release date"])
    expect(result.report.reason).toBe("final")
    expect(JSON.stringify(h.server.requests[1]!.body.messages)).not.toContain("upstream timeout")
  }), 30_000)

  it.live("at the rollback cap a duplicate is let run", () => Effect.gen(function* () {
    const s = searchTool(() => "same answer")
    const h = yield* harness([toolCallStream("search", { q: "x" }, { id: "c1" }), toolCallStream("search", { q: "x" }, { id: "c2" }), textStream("Done.")], {
      tools: [s.tool],
      config: (c) => ({ ...c, rollback: { ...c.rollback, maxConsecutiveRollbacks: 1 } })
    })
    const { result } = yield* h.provide(run)
    expect(s.ran).toEqual(["x", "x"])
    expect(result.report.reason).toBe("final")
  }), 30_000)
})

describe("failure-summary retry (off by default)", () => {
  const loopingThenFixed = (): Array<ScriptedResponse> => [
    toolCallStream("search", { q: "a" }, { id: "c1" }),
    toolCallStream("search", { q: "b" }, { id: "c2" }),
    textStream("I searched a and b; neither said when it was released. Next time search the vendor's changelog."),
    textStream("Per the changelog: 1 May 2024.")
  ]

  it.live("on: a max_steps failure gets one tool-less summary request, then a fresh attempt that carries the summary", () => Effect.gen(function* () {
    const s = searchTool(() => "nothing useful")
    const h = yield* harness(loopingThenFixed(), {
      tools: [s.tool],
      config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 }, failureSummary: { enabled: true, maxRetries: 1 } })
    })
    const { result } = yield* h.provide(run)
    expect(h.server.requests.length).toBe(4)
    const summaryRequest = h.server.requests[2]!.body
    expect(summaryRequest.tools ?? []).toEqual([])
    expect(JSON.stringify(summaryRequest.messages)).toContain("This attempt at the task has failed")
    const retried = JSON.stringify(h.server.requests[3]!.body.messages)
    expect(retried).toContain("A previous attempt at this task failed (max_steps)")
    expect(retried).toContain("search the vendor's changelog")
    expect(result.report.reason).toBe("final")
    expect(result.incidents).toContainEqual(expect.objectContaining({ detector: "failure-summary", action: "retry", detail: expect.objectContaining({ reason: "max_steps" }) }))
    // One door: the report tells of the retry and of the failed attempt's incidents, as the events did.
    expect(result.report.incidents).toEqual(result.incidents.map((i) => ({ step: i.step, detector: i.detector, action: i.action })))
    const published = h.events.flatMap((e) => (e.type === "incident" ? [`${e.step}:${e.detector}:${e.action}`] : [])).sort()
    expect(result.report.incidents.map((i) => `${i.step}:${i.detector}:${i.action}`).sort()).toEqual(published)
  }), 30_000)

  it.live("off (the default): the failed run simply ends", () => Effect.gen(function* () {
    const s = searchTool(() => "nothing useful")
    const h = yield* harness(loopingThenFixed(), { tools: [s.tool], config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 } }) })
    const { result } = yield* h.provide(run)
    expect(h.server.requests.length).toBe(2)
    expect(result.report.reason).toBe("max_steps")
  }), 30_000)
})
