import { repeatLoop, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { type Harness, harness, noRetries } from "./harness.js"

const thinkOnly = (r: string): ScriptedResponse => ({ type: "stream", chunks: [{ reasoning: r }], finish: "stop" })
const answer = (t: string): ScriptedResponse => textStream(t)
const run = (prompt = "Fix the failing test", extra: { maxSteps?: number } = {}) =>
  Effect.gen(function* () {
    return yield* (yield* RunLoop).run({ sessionId: "s", prompt, ...extra })
  })
/** The text of every message the server received in request i. */
const bodyText = (body: any): string => JSON.stringify(body.messages)

const echoTool: ToolDefinition = {
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: `ran ${String(input["command"])}`, exitCode: 0 })
}

/** The echo tool that also records each command it ran. */
const recordingTool = () => {
  const ran: Array<string> = []
  const recording: ToolDefinition = { ...echoTool, run: async (input) => (ran.push(String(input["command"])), { state: "completed", output: "ok", exitCode: 0 }) }
  return { ran, recording }
}

/** Three requests; the second still offered the one tool, the last offered none and said why. */
const expectToolLessLastOfThree = (h: Harness, why: string) => {
  expect(h.server.requests.length).toBe(3)
  expect(h.server.requests[1]!.body.tools?.length).toBe(1)
  expect(h.server.requests[2]!.body.tools).toBeUndefined()
  expect(bodyText(h.server.requests[2]!.body)).toContain(why)
}

describe("RunLoop over HTTP", () => {
  it.live("think-only twice, then an answer: final", () => Effect.gen(function* () {
    const h = yield* harness([thinkOnly("hmm one"), thinkOnly("hmm two"), answer("All done.")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("final")
    expect(r.report.stepsUsed).toBe(3)
    expect(h.server.requests.length).toBe(3)
  }))

  it.live("think-only three times ends with the think-only exit", () => Effect.gen(function* () {
    const h = yield* harness([thinkOnly("a"), thinkOnly("b"), thinkOnly("c"), answer("never reached")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("think_only")
    expect(r.report.status).toBe("aborted")
    expect(h.server.requests.length).toBe(3)
  }))

  it.live("finish length four times: OutputLengthError after three continuations", () => Effect.gen(function* () {
    const cut = (t: string): ScriptedResponse => textStream(t, { finish: "length" })
    const h = yield* harness([cut("part one"), cut("part two"), cut("part three"), cut("part four"), answer("x")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("output_length")
    expect(h.server.requests.length).toBe(4)
    expect(bodyText(h.server.requests[1]!.body)).toMatch(/continue (exactly )?from where you stopped/i)
  }))

  it.live("tool-call markup instead of a tool call is retried and left out of the next request", () => Effect.gen(function* () {
    const markup: ScriptedResponse = { type: "stream", chunks: [{ text: '<function_calls><invoke name="bash">ls</invoke></function_calls>' }], finish: "tool_calls" }
    const h = yield* harness([markup, answer("Listed.")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("final")
    expect(h.server.requests.length).toBe(2)
    expect(bodyText(h.server.requests[1]!.body)).not.toContain("<function_calls>")
  }))

  it.live("content filter ends at once, no retry", () => Effect.gen(function* () {
    const h = yield* harness([textStream("partial", { finish: "content_filter" }), answer("x")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("content_filter")
    expect(h.server.requests.length).toBe(1)
  }))

  it.live("a terminal provider error records ModelError and exits", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "error", status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } }, answer("x")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("model_error")
    expect(h.server.requests.length).toBe(1)
  }))

  it.live("the system prompt reaches the server as the first message", () => Effect.gen(function* () {
    const h = yield* harness([answer("ok")])
    const r = yield* h.provide(Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "hi", system: "You are a careful agent." })
    }))
    expect(r.report.reason).toBe("final")
    expect(h.server.requests[0]!.body.messages[0]).toEqual({ role: "system", content: "You are a careful agent." })
  }))

  it.live("external cancellation interrupts the running step, aborts the request and ends with cancelled", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "stream", chunks: [{ text: "Thinking about it" }, { text: " more" }], finish: "stop", stallAfterChunks: 1, stallMs: 30_000 }])
    const controller = new AbortController()
    // A child of the test's fiber: it cannot fire after the test has ended.
    yield* Effect.forkChild(Effect.delay(Effect.sync(() => controller.abort()), "300 millis"))
    const started = Date.now()
    const [r, stored] = yield* h.provide(Effect.gen(function* () {
      const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt: "hi", signal: controller.signal })
      return [result, yield* (yield* SessionStore).messages("s")] as const
    }))
    expect(Date.now() - started).toBeLessThan(5_000)
    // What streamed before the cancel is kept.
    expect(JSON.stringify(stored)).toContain("Thinking about it")
    expect(r.report.reason).toBe("cancelled")
    expect(r.report.status).toBe("aborted")
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }))

  it.live("structured output: a text answer is reminded to use the tool; the tool call ends the run with the result", () => Effect.gen(function* () {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] }
    const h = yield* harness([answer("The answer is 42."), toolCallStream("structured_output", { answer: 42 })])
    const r = yield* h.provide(Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "compute", structuredOutput: { schema } })
    }))
    expect(r.report.reason).toBe("final")
    expect(r.structured).toEqual({ answer: 42 })
    expect(h.server.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain("structured_output")
    expect(bodyText(h.server.requests[1]!.body)).toMatch(/structured-output tool/i)
  }))

  it.live("structured output never given: bounded reminders, then the structured_output exit", () => Effect.gen(function* () {
    const h = yield* harness([answer("a"), answer("b"), answer("c"), answer("d")])
    const r = yield* h.provide(Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "compute", structuredOutput: { schema: { type: "object" } } })
    }))
    expect(r.report.reason).toBe("structured_output")
    expect(h.server.requests.length).toBe(3)
    expect(r.structured).toBeUndefined()
  }))

  it.live("the session status carries the attempt number through a retry and resets when idle", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "error", status: 429, headers: { "retry-after-ms": "150" } }, answer("ok")])
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("final")
    const statuses = h.events.flatMap((e) => (e.type === "session.status" ? [[e.status, e.attempt]] : []))
    expect(statuses).toEqual([["busy", 0], ["retry", 1], ["idle", 0]])
    expect(r.report.retries["transport"]).toBe(1)
  }))

  it.live("a corrupted stream chunk is a broken stream: the step is replayed and the answer has no duplicated text", () => Effect.gen(function* () {
    const h = yield* harness(
      [{ type: "stream", chunks: [{ text: "Hello" }, { raw: "{not json" }, { text: " world" }], finish: "stop" }, answer("Hello world")],
      { config: (c) => ({ ...c, retry: { ...c.retry, stream: { initialDelayMs: 10 } } }) }
    )
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("final")
    expect(r.report.finalText).toBe("Hello world")
    expect(h.server.requests.length).toBe(2)
    expect(h.events.find((e) => e.type === "session.retry.attempt")).toMatchObject({ phase: "stream", kind: "stream" })
  }))

  it.live("tools run and their results go back to the model", () => Effect.gen(function* () {
    const h = yield* harness([toolCallStream("bash", { command: "ls" }), answer("Found it.")], { tools: [echoTool] })
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("final")
    expect(bodyText(h.server.requests[1]!.body)).toContain("ran ls")
  }))

  it.live("soft cap: the last request has no tools and says why; the wrap-up answer reaches the report", () => Effect.gen(function* () {
    const { ran, recording } = recordingTool()
    const calls = [1, 2].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = yield* harness([...calls, answer("Listed both folders; nothing left to do.")], {
      tools: [recording],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "soft", maxSteps: 3 } })
    })
    const r = yield* h.provide(run())
    expectToolLessLastOfThree(h, "this is step 3 of 3, the last one allowed by the step cap")
    expect(r.report.reason).toBe("final")
    expect(r.report.finalText).toBe("Listed both folders; nothing left to do.")
    expect(ran).toEqual(["ls 1", "ls 2"])
  }), 30_000)

  it.live("soft cap: a tool called on the tool-less last step does not run, and the run stops at max_steps", () => Effect.gen(function* () {
    const { ran, recording } = recordingTool()
    const calls = [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = yield* harness([...calls, answer("never asked")], {
      tools: [recording],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "soft", maxSteps: 3 } })
    })
    const r = yield* h.provide(run())
    expect(h.server.requests.length).toBe(3)
    expect(ran).toEqual(["ls 1", "ls 2"])
    expect(r.report.reason).toBe("max_steps")
    expect(h.events.some((e) => e.type === "incident" && e.detector === "tools-paused")).toBe(true)
  }), 30_000)

  it.live("summary cap: a spent token budget makes one tool-less summary request that says why, and the summary is reported", () => Effect.gen(function* () {
    const usage = { prompt_tokens: 400, completion_tokens: 100 }
    const calls = [1, 2].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}`, usage }))
    const h = yield* harness([...calls, textStream("Here is where things stand.", { usage })], {
      tools: [echoTool],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "summary", maxSteps: 50, tokenBudget: 1000 } })
    })
    const r = yield* h.provide(run())
    expectToolLessLastOfThree(h, "the token budget (1000 of 1000 tokens used) is reached")
    expect(r.report.reason).toBe("budget_tokens")
    expect(r.report.tokens.total).toBe(1500)
    expect(r.report.finalText).toBe("Here is where things stand.")
    expect(r.report.completed).toEqual(["ran `ls 1` (exit 0)", "ran `ls 2` (exit 0)"])
  }), 30_000)

  it.live("hard cap stops with max_steps", () => Effect.gen(function* () {
    const calls = [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = yield* harness(calls, { tools: [echoTool], config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 } }) })
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("max_steps")
    expect(h.server.requests.length).toBe(2)
  }))

  it.live("counters reset on a new user turn", () => Effect.gen(function* () {
    const h = yield* harness([thinkOnly("a"), thinkOnly("b"), answer("one"), thinkOnly("c"), thinkOnly("d"), answer("two")])
    const [a, b] = yield* h.provide(Effect.all([run("first"), run("second")]))
    expect(a.report.reason).toBe("final")
    expect(b.report.reason).toBe("final")
  }))

  it.live("text repetition: REMIND, then REPLAN, then terminate", () => Effect.gen(function* () {
    const loop = repeatLoop("I will check the configuration file again to be sure now.", 40, { chunkSize: 13 })
    const h = yield* harness([loop, loop, loop, answer("x")], { config: noRetries })
    const r = yield* h.provide(run())
    expect(r.report.reason).toBe("text_repeat")
    expect(h.server.requests.length).toBe(3)
    expect(bodyText(h.server.requests[1]!.body)).toMatch(/rephrase|different tool|stuck/i)
    expect(bodyText(h.server.requests[2]!.body)).toMatch(/MUST completely replan/)
  }))
})
