import { repeatLoop, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness, noRetries } from "./harness.js"

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

describe("RunLoop over HTTP", () => {
  test("think-only twice, then an answer: final", async () => {
    const h = await makeHarness([thinkOnly("hmm one"), thinkOnly("hmm two"), answer("All done.")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("final")
      expect(r.report.stepsUsed).toBe(3)
      expect(h.server.requests.length).toBe(3)
    } finally {
      await h.close()
    }
  })

  test("think-only three times ends with the think-only exit", async () => {
    const h = await makeHarness([thinkOnly("a"), thinkOnly("b"), thinkOnly("c"), answer("never reached")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("think_only")
      expect(r.report.status).toBe("aborted")
      expect(h.server.requests.length).toBe(3)
    } finally {
      await h.close()
    }
  })

  test("finish length four times: OutputLengthError after three continuations", async () => {
    const cut = (t: string): ScriptedResponse => textStream(t, { finish: "length" })
    const h = await makeHarness([cut("part one"), cut("part two"), cut("part three"), cut("part four"), answer("x")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("output_length")
      expect(h.server.requests.length).toBe(4)
      expect(bodyText(h.server.requests[1]!.body)).toMatch(/continue (exactly )?from where you stopped/i)
    } finally {
      await h.close()
    }
  })

  test("tool-call markup instead of a tool call is retried and left out of the next request", async () => {
    const markup: ScriptedResponse = { type: "stream", chunks: [{ text: '<function_calls><invoke name="bash">ls</invoke></function_calls>' }], finish: "tool_calls" }
    const h = await makeHarness([markup, answer("Listed.")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("final")
      expect(h.server.requests.length).toBe(2)
      expect(bodyText(h.server.requests[1]!.body)).not.toContain("<function_calls>")
    } finally {
      await h.close()
    }
  })

  test("content filter ends at once, no retry", async () => {
    const h = await makeHarness([textStream("partial", { finish: "content_filter" }), answer("x")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("content_filter")
      expect(h.server.requests.length).toBe(1)
    } finally {
      await h.close()
    }
  })

  test("a terminal provider error records ModelError and exits", async () => {
    const h = await makeHarness([{ type: "error", status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } }, answer("x")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("model_error")
      expect(h.server.requests.length).toBe(1)
    } finally {
      await h.close()
    }
  })

  test("the system prompt reaches the server as the first message", async () => {
    const h = await makeHarness([answer("ok")])
    try {
      const r = await h.run(Effect.gen(function* () {
        return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "hi", system: "You are a careful agent." })
      }))
      expect(r.report.reason).toBe("final")
      expect(h.server.requests[0]!.body.messages[0]).toEqual({ role: "system", content: "You are a careful agent." })
    } finally {
      await h.close()
    }
  })

  test("external cancellation interrupts the running step, aborts the request and ends with cancelled", async () => {
    const h = await makeHarness([{ type: "stream", chunks: [{ text: "Thinking about it" }, { text: " more" }], finish: "stop", stallAfterChunks: 1, stallMs: 30_000 }])
    try {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 300)
      const started = Date.now()
      const [r, stored] = await h.run(Effect.gen(function* () {
        const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt: "hi", signal: controller.signal })
        return [result, yield* (yield* SessionStore).messages("s")] as const
      }))
      expect(Date.now() - started).toBeLessThan(5_000)
      // What streamed before the cancel is kept.
      expect(JSON.stringify(stored)).toContain("Thinking about it")
      expect(r.report.reason).toBe("cancelled")
      expect(r.report.status).toBe("aborted")
      await h.server.requests[0]!.done
      expect(h.server.requests[0]!.closedEarly).toBe(true)
    } finally {
      await h.close()
    }
  })

  test("structured output: a text answer is reminded to use the tool; the tool call ends the run with the result", async () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] }
    const h = await makeHarness([answer("The answer is 42."), toolCallStream("structured_output", { answer: 42 })])
    try {
      const r = await h.run(Effect.gen(function* () {
        return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "compute", structuredOutput: { schema } })
      }))
      expect(r.report.reason).toBe("final")
      expect(r.structured).toEqual({ answer: 42 })
      expect(h.server.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain("structured_output")
      expect(bodyText(h.server.requests[1]!.body)).toMatch(/structured-output tool/i)
    } finally {
      await h.close()
    }
  })

  test("structured output never given: bounded reminders, then the structured_output exit", async () => {
    const h = await makeHarness([answer("a"), answer("b"), answer("c"), answer("d")])
    try {
      const r = await h.run(Effect.gen(function* () {
        return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "compute", structuredOutput: { schema: { type: "object" } } })
      }))
      expect(r.report.reason).toBe("structured_output")
      expect(h.server.requests.length).toBe(3)
      expect(r.structured).toBeUndefined()
    } finally {
      await h.close()
    }
  })

  test("the session status carries the attempt number through a retry and resets when idle", async () => {
    const h = await makeHarness([{ type: "error", status: 429, headers: { "retry-after-ms": "150" } }, answer("ok")])
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("final")
      const statuses = h.events.flatMap((e) => (e.type === "session.status" ? [[e.status, e.attempt]] : []))
      expect(statuses).toEqual([["busy", 0], ["retry", 1], ["idle", 0]])
      expect(r.report.retries["transport"]).toBe(1)
    } finally {
      await h.close()
    }
  })

  test("a corrupted stream chunk is a broken stream: the step is replayed and the answer has no duplicated text", async () => {
    const h = await makeHarness(
      [{ type: "stream", chunks: [{ text: "Hello" }, { raw: "{not json" }, { text: " world" }], finish: "stop" }, answer("Hello world")],
      { config: (c) => ({ ...c, retry: { ...c.retry, stream: { initialDelayMs: 10 } } }) }
    )
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("final")
      expect(r.report.finalText).toBe("Hello world")
      expect(h.server.requests.length).toBe(2)
      expect(h.events.find((e) => e.type === "session.retry.attempt")).toMatchObject({ phase: "stream", kind: "stream" })
    } finally {
      await h.close()
    }
  })

  test("tools run and their results go back to the model", async () => {
    const h = await makeHarness([toolCallStream("bash", { command: "ls" }), answer("Found it.")], { tools: [echoTool] })
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("final")
      expect(bodyText(h.server.requests[1]!.body)).toContain("ran ls")
    } finally {
      await h.close()
    }
  })

  test("soft cap: the last request has no tools and says why; the wrap-up answer reaches the report", async () => {
    const ran: Array<string> = []
    const recording: ToolDefinition = { ...echoTool, run: async (input) => (ran.push(String(input["command"])), { state: "completed", output: "ok", exitCode: 0 }) }
    const calls = [1, 2].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = await makeHarness([...calls, answer("Listed both folders; nothing left to do.")], {
      tools: [recording],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "soft", maxSteps: 3 } })
    })
    try {
      const r = await h.run(run())
      expect(h.server.requests.length).toBe(3)
      expect(h.server.requests[1]!.body.tools?.length).toBe(1)
      expect(h.server.requests[2]!.body.tools).toBeUndefined()
      expect(bodyText(h.server.requests[2]!.body)).toContain("this is step 3 of 3, the last one allowed by the step cap")
      expect(r.report.reason).toBe("final")
      expect(r.report.finalText).toBe("Listed both folders; nothing left to do.")
      expect(ran).toEqual(["ls 1", "ls 2"])
    } finally {
      await h.close()
    }
  }, 30_000)

  test("soft cap: a tool called on the tool-less last step does not run, and the run stops at max_steps", async () => {
    const ran: Array<string> = []
    const recording: ToolDefinition = { ...echoTool, run: async (input) => (ran.push(String(input["command"])), { state: "completed", output: "ok", exitCode: 0 }) }
    const calls = [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = await makeHarness([...calls, answer("never asked")], {
      tools: [recording],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "soft", maxSteps: 3 } })
    })
    try {
      const r = await h.run(run())
      expect(h.server.requests.length).toBe(3)
      expect(ran).toEqual(["ls 1", "ls 2"])
      expect(r.report.reason).toBe("max_steps")
      expect(h.events.some((e) => e.type === "incident" && e.detector === "tools-paused")).toBe(true)
    } finally {
      await h.close()
    }
  }, 30_000)

  test("summary cap: a spent token budget makes one tool-less summary request that says why, and the summary is reported", async () => {
    const usage = { prompt_tokens: 400, completion_tokens: 100 }
    const calls = [1, 2].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}`, usage }))
    const h = await makeHarness([...calls, textStream("Here is where things stand.", { usage })], {
      tools: [echoTool],
      config: (c) => ({ ...c, loop: { ...c.loop, capMode: "summary", maxSteps: 50, tokenBudget: 1000 } })
    })
    try {
      const r = await h.run(run())
      expect(h.server.requests.length).toBe(3)
      expect(h.server.requests[1]!.body.tools?.length).toBe(1)
      expect(h.server.requests[2]!.body.tools).toBeUndefined()
      expect(bodyText(h.server.requests[2]!.body)).toContain("the token budget (1000 of 1000 tokens used) is reached")
      expect(r.report.reason).toBe("budget_tokens")
      expect(r.report.tokens.total).toBe(1500)
      expect(r.report.finalText).toBe("Here is where things stand.")
      expect(r.report.completed).toEqual(["ran `ls 1` (exit 0)", "ran `ls 2` (exit 0)"])
    } finally {
      await h.close()
    }
  }, 30_000)

  test("hard cap stops with max_steps", async () => {
    const calls = [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls ${i}` }, { id: `c${i}` }))
    const h = await makeHarness(calls, { tools: [echoTool], config: (c) => ({ ...c, loop: { ...c.loop, maxSteps: 2 } }) })
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("max_steps")
      expect(h.server.requests.length).toBe(2)
    } finally {
      await h.close()
    }
  })

  test("counters reset on a new user turn", async () => {
    const h = await makeHarness([thinkOnly("a"), thinkOnly("b"), answer("one"), thinkOnly("c"), thinkOnly("d"), answer("two")])
    try {
      const [a, b] = await h.run(Effect.all([run("first"), run("second")]))
      expect(a.report.reason).toBe("final")
      expect(b.report.reason).toBe("final")
    } finally {
      await h.close()
    }
  })

  test("text repetition: REMIND, then REPLAN, then terminate", async () => {
    const loop = repeatLoop("I will check the configuration file again to be sure now.", 40, { chunkSize: 13 })
    const h = await makeHarness([loop, loop, loop, answer("x")], { config: noRetries })
    try {
      const r = await h.run(run())
      expect(r.report.reason).toBe("text_repeat")
      expect(h.server.requests.length).toBe(3)
      expect(bodyText(h.server.requests[1]!.body)).toMatch(/rephrase|different tool|stuck/i)
      expect(bodyText(h.server.requests[2]!.body)).toMatch(/MUST completely replan/)
    } finally {
      await h.close()
    }
  })
})
