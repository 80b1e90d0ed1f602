/**
 * Over HTTP: Try-Best counters belong to the
 * session, so failures of one command spread over two user turns still count; only the incident
 * resets them. The third failure is a note (given with the next request), the next one pauses.
 * The pause event names the session, the agent and the model. (Edit streaks, which these tests
 * used before, are off by default and never pause: long healthy runs edit many files in a row.)
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const turn = (sessionId: string, prompt: string) => Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId, prompt }) })

const failingTool = (): { tool: ToolDefinition; ran: Array<unknown> } => {
  const ran: Array<unknown> = []
  return {
    ran,
    tool: {
      spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      run: async (input) => (ran.push(input), { state: "completed", output: "make: *** [build] Error 2", exitCode: 2 })
    }
  }
}

let calls = 0
const make = () => toolCallStream("bash", { command: "make build" }, { id: `m${calls++}` })
// The error-storm breaker is off so that every call runs: these tests are about Try-Best's counters.
const config = (c: any) => ({ ...c, tryBest: { ...c.tryBest, enabled: true }, breaker: { ...c.breaker, enabled: false } })

describe("Try-Best counters persist across the user turns of a session", () => {
  it.live("two failures per turn: the third, in the second turn, is a note; the fourth pauses; the event names agent and model", () => Effect.gen(function* () {
    const e = failingTool()
    const h = yield* harness([make(), make(), textStream("The build fails twice."), make(), make(), textStream("never reached")], {
      tools: [e.tool],
      config,
      modelId: "scripted-coder-1"
    })
    // One RunLoop for the session's life, as `loopguard chat` keeps it.
    const [first, second] = yield* h.provide(Effect.all([turn("t", "Build it"), turn("t", "Try again")]))
    expect(first.report.reason).toBe("final")
    expect(second.report.reason).toBe("try_best_paused")
    expect(e.ran).toHaveLength(4)
    expect(h.server.requests.length).toBe(5)
    // The note on the third failure went out with the request after it, before the pause.
    expect(JSON.stringify(h.server.requests[4]!.body.messages)).toContain("`make build` has failed 3 times")
    expect(second.incidents).toContainEqual(expect.objectContaining({ detector: "bash-retry", action: "note" }))
    // The report names the evidence: the command, how often, the note's step and the step after it.
    expect(second.report.blockedAt).toContain("`make build` has failed 4 times (exit 2)")
    expect(second.report.blockedAt).toContain("Noted at step 3; it failed again at step 4")
    const detected = h.events.find((x) => x.type === "session.try_best.detected")
    expect(detected).toMatchObject({ sessionId: "t", agent: "main", model: "scripted-coder-1", incident: expect.objectContaining({ kind: "bash_retry", evidence: expect.objectContaining({ count: 4 }) }) })
  }), 30_000)

  it.live("another session starts from zero: the same two turns split over two sessions do not pause", () => Effect.gen(function* () {
    const e = failingTool()
    const h = yield* harness([make(), make(), textStream("The build fails twice."), make(), make(), textStream("Still failing, twice.")], {
      tools: [e.tool],
      config
    })
    const [one, two] = yield* h.provide(Effect.all([turn("one", "Build it"), turn("two", "Build it")]))
    expect(one.report.reason).toBe("final")
    expect(two.report.reason).toBe("final")
    expect(h.events.some((x) => x.type === "session.try_best.detected")).toBe(false)
  }), 30_000)
})

describe("a stored paused session shows its pause again when reopened", () => {
  it.live("reopened without a new turn: no model request, the same pause again; a new turn goes on", () => Effect.gen(function* () {
    const e = failingTool()
    const h = yield* harness([make(), make(), make(), make(), textStream("Fixed the Makefile instead.")], {
      tools: [e.tool],
      config
    })
    const reopen = Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "p" }) })
    const [paused, reopened, resumed] = yield* h.provide(Effect.all([turn("p", "Build it"), reopen, turn("p", "Look at the Makefile first")]))
    expect(paused.report.reason).toBe("try_best_paused")
    expect(reopened.report.reason).toBe("try_best_paused")
    expect(reopened.incidents).toContainEqual(expect.objectContaining({ detector: "try-best", action: "pause", detail: expect.objectContaining({ kind: "bash_retry", reopened: true }) }))
    expect(h.events.filter((x) => x.type === "session.try_best.detected")).toHaveLength(2)
    expect(resumed.report.reason).toBe("final")
    // 4 failing steps, nothing for the reopening, 1 step for the new turn.
    expect(h.server.requests.length).toBe(5)
  }), 30_000)
})
