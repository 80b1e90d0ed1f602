/**
 * Every way a run ends from outside its steps, judged from the server's side and by side effects:
 * the wall clock (`loop.maxWallMs`), the caller's abort signal and an interrupted fiber.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { it, untilReal } from "./effect-test.js"
import { harness, type Harness } from "./harness.js"

const stalled = (text: string): ScriptedResponse => ({ type: "stream", chunks: [{ text }, { text: " more" }], finish: "stop", stallAfterChunks: 1, stallMs: 60_000 })

/** A tool that runs until its abort signal fires, and says whether it was aborted. */
const waitingTool = () => {
  const seen = { started: 0, aborted: 0 }
  let started: () => void = () => {}
  const startedOnce = new Promise<void>((resolve) => (started = resolve))
  const tool: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: (_input, signal) =>
      new Promise((resolve) => {
        seen.started += 1
        started()
        signal.addEventListener("abort", () => {
          seen.aborted += 1
          resolve({ state: "error", output: "", error: "aborted" })
        })
      })
  }
  return { tool, seen, startedOnce }
}

/**
 * A turn on the TestClock whose tool waits for its abort signal: the tool is still running 1 ms
 * before `limitMs` (counted from the run's and the step's start), and the run ends at it.
 */
const runToToolLimit = (h: Harness, w: ReturnType<typeof waitingTool>, limitMs: number) =>
  Effect.gen(function* () {
    const running = yield* Effect.forkChild(h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "fix it" }) })))
    yield* untilReal(() => w.seen.started === 1, "the tool has started", 20_000)
    yield* TestClock.adjust(limitMs - 1)
    expect(w.seen.aborted).toBe(0)
    yield* TestClock.adjust(1)
    return yield* Fiber.join(running)
  })

describe("wall clock (loop.maxWallMs)", () => {
  it.live("a stalled model request: time_limit, the request aborted, the report written", () => Effect.gen(function* () {
    const h = yield* harness([stalled("Working on it")], { config: (c) => ({ ...c, loop: { ...c.loop, maxWallMs: 400 } }) })
    const [r, stored] = yield* h.provide(
      Effect.gen(function* () {
        const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt: "fix it" })
        return [result, yield* (yield* SessionStore).messages("s")] as const
      })
    )
    expect(r.report.reason).toBe("time_limit")
    expect(r.report.status).toBe("aborted")
    expect(r.report.blockedAt).toContain("loop.maxWallMs")
    expect(r.exit).toMatchObject({ reason: "time_limit", step: 0, error: { tag: "TimeLimitError" } })
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
    expect(JSON.stringify(stored)).toContain("Working on it")
    expect(h.events.at(-1)).toMatchObject({ type: "run.finished", report: { reason: "time_limit" } })
  }), 30_000)

  it.effect("a running tool gets its abort signal when the wall clock ends the run", () => Effect.gen(function* () {
    const w = waitingTool()
    const h = yield* harness([toolCallStream("bash", { command: "sleep 300" }), textStream("never")], {
      tools: [w.tool],
      config: (c) => ({ ...c, loop: { ...c.loop, maxWallMs: 500 } })
    })
    const r = yield* runToToolLimit(h, w, 500)
    expect(r.report.reason).toBe("time_limit")
    expect(w.seen).toEqual({ started: 1, aborted: 1 })
    expect(h.server.requests.length).toBe(1)
  }), 30_000)
})

describe("per-step timeout (loop.stepTimeoutMs)", () => {
  it.live("a step that hangs ends the run with timeout; the request is closed and what streamed is kept", () => Effect.gen(function* () {
    const h = yield* harness([stalled("Reading the logs")], { config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 400 } }) })
    const [r, stored] = yield* h.provide(
      Effect.gen(function* () {
        const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt: "fix it" })
        return [result, yield* (yield* SessionStore).messages("s")] as const
      })
    )
    expect(r.report.reason).toBe("timeout")
    expect(r.report.error).toEqual({ tag: "StepTimeoutError", message: "step 0 ran past 400 ms" })
    expect(r.report.incidents).toContainEqual({ step: 0, detector: "timeout", action: "stop" })
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
    expect(JSON.stringify(stored)).toContain("Reading the logs")
  }), 30_000)

  it.effect("a tool that hangs past the step timeout gets its abort signal", () => Effect.gen(function* () {
    const w = waitingTool()
    const h = yield* harness([toolCallStream("bash", { command: "sleep 300" }), textStream("never")], {
      tools: [w.tool],
      config: (c) => ({ ...c, loop: { ...c.loop, stepTimeoutMs: 400 } })
    })
    const r = yield* runToToolLimit(h, w, 400)
    expect(r.report.reason).toBe("timeout")
    expect(w.seen).toEqual({ started: 1, aborted: 1 })
    expect(h.server.requests.length).toBe(1)
  }), 30_000)
})

describe("library cancellation", () => {
  it.live("interrupting the run's fiber aborts the request and still publishes a cancelled end", () => Effect.gen(function* () {
    // Long enough (64+ words) for the client to announce it with a stream.progress event.
    const h = yield* harness([stalled(`${"word ".repeat(70)}Halfway there`)])
    const stored = yield* h.provide(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild((yield* RunLoop).run({ sessionId: "s", prompt: "fix it" }))
        // Wait until the client has received the first part of the reply.
        while (!h.events.some((e) => e.type === "stream.progress")) yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(fiber)
        return yield* (yield* SessionStore).messages("s")
      })
    )
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
    expect(JSON.stringify(stored)).toContain("Halfway there")
    // The store keeps the cut reply, marked as cancelled (and left for resume to show as interrupted).
    expect(stored.find((m) => m.role === "assistant")).toMatchObject({ error: { name: "CancelledError", aborted: true } })
    const finished = h.events.find((e) => e.type === "run.finished")
    expect(finished).toMatchObject({ report: { reason: "cancelled", status: "aborted", error: { tag: "CancelledError" } } })
    expect(h.events.filter((e) => e.type === "session.status").at(-1)).toMatchObject({ status: "idle" })
  }), 30_000)

  it.live("an abort signal during a tool aborts the tool and ends cancelled", () => Effect.gen(function* () {
    const w = waitingTool()
    const controller = new AbortController()
    const h = yield* harness([toolCallStream("bash", { command: "sleep 300" }), textStream("never")], { tools: [w.tool] })
    void w.startedOnce.then(() => controller.abort())
    const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "fix it", signal: controller.signal }) }))
    expect(r.report.reason).toBe("cancelled")
    expect(w.seen).toEqual({ started: 1, aborted: 1 })
    expect(r.report.incidents).toContainEqual({ step: 0, detector: "cancel", action: "stop" })
  }), 30_000)
})

describe("the report names why a run was cancelled", () => {
  it.live("a deadline the caller set (AbortSignal.timeout) is not reported as the user's cancel", () => Effect.gen(function* () {
    const stalled = { type: "stream", chunks: [{ text: "Looking" }, { text: " more" }], stallAfterChunks: 1, stallMs: 60_000 } as const
    const h = yield* harness([stalled])
    const signal = AbortSignal.timeout(1_500)
    const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go", signal }) }))
    expect(r.report.reason).toBe("cancelled")
    expect(r.report.error?.message).toBe("stopped because the caller's deadline passed (its abort signal timed out)")
  }), 30_000)
})

describe("budgets and the report", () => {
  const shell: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async (input) => (String(input["command"]).includes("test") ? { state: "completed", output: "FAIL date.test.ts\n1 failed", exitCode: 1 } : { state: "completed", output: "ok", exitCode: 0 })
  }
  const edit: ToolDefinition = {
    spec: { name: "edit", description: "edit a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    run: async (input) => ({ state: "completed", output: "edited", path: String(input["path"]), diff: "--- a\n+++ b\n-x\n+y" })
  }

  it.live("a cost budget stops with budget_cost once the priced usage reaches it", () => Effect.gen(function* () {
    const usage = { prompt_tokens: 100_000, completion_tokens: 10_000 }
    const calls = [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}`, usage }))
    const h = yield* harness(calls, {
      tools: [shell],
      // $1 per million input tokens, $10 per million output tokens: $0.20 a step.
      config: (c) => ({ ...c, prices: { "scripted-model": { inputPerMTok: 1, outputPerMTok: 10 } }, loop: { ...c.loop, costBudgetUsd: 0.4 } })
    })
    const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go" }) }))
    expect(r.report.reason).toBe("budget_cost")
    expect(h.server.requests.length).toBe(2)
    expect(r.report.costUsd).toBeCloseTo(0.4, 6)
    expect(r.report.incidents).toContainEqual({ step: 2, detector: "budget", action: "stop" })
  }), 30_000)

  it.live("a cost cap on a model without a price warns at the start", () => Effect.gen(function* () {
    const h = yield* harness([textStream("done")], { config: (c) => ({ ...c, loop: { ...c.loop, costBudgetUsd: 1 } }) })
    const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go" }) }))
    expect(r.report.costUsd).toBeNull()
    const warn = h.events.find((e) => e.type === "incident" && e.detector === "budget" && e.action === "warn")
    expect(JSON.stringify(warn)).toContain("no price is known for model scripted-model")
  }), 30_000)

  it.live("the report: achievements, the last failure with its step and tool, the workspace and its changed files", () => Effect.gen(function* () {
    const h = yield* harness(
      [
        toolCallStream("edit", { path: "src/date.ts" }, { id: "e1" }),
        toolCallStream("bash", { command: "ls src" }, { id: "b1" }),
        toolCallStream("bash", { command: "bun test" }, { id: "b2" })
      ],
      { tools: [shell, edit], config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 3 } }) }
    )
    const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "fix", workspace: "/work/app" }) }))
    expect(r.report.reason).toBe("max_steps")
    expect(r.report.completed).toEqual(["changed src/date.ts", "ran `ls src` (exit 0)", "ran `bun test` (exit 1)"])
    expect(r.report.blockedAt).toBe(
      "step 3: The step cap was reached before the task was done; last failure: step 2, tool bash (`bun test`): exit 1: FAIL date.test.ts"
    )
    expect(r.report.savedAt).toBe("session: in memory only (session s); workspace: /work/app (changed: src/date.ts)")
    expect(r.report.incidents).toContainEqual({ step: 3, detector: "step-cap", action: "stop" })
  }), 30_000)
})
