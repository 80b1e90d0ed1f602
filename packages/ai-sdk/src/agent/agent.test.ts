/**
 * The agent helpers in real AI SDK loops (`ToolLoopAgent`, `generateText` and `streamText` with
 * `stopWhen`) through the real OpenAI-compatible provider against the scripted server; what the
 * guard did is judged from the server's request log and from the tools' own execution counts.
 */
import { describe, expect, spyOn, test } from "bun:test"
import { generateText, jsonSchema, stepCountIs, streamText, tool, ToolLoopAgent, type ModelMessage, type ToolSet } from "ai"
import { repeatLoop, scriptedChatModel, textStream, toolCallStream } from "../scripted-server/index.js"
import type { ScriptedServer, StreamResponse } from "../scripted-server/index.js"
import { scriptedServersPerTest } from "../scripted-server/per-test.fixture.js"
import { loopguardAgent, type LoopguardAgentEvent, type LoopguardAgentOptions } from "./index.js"

const TIMEOUT = 60_000
const { serve } = scriptedServersPerTest()

/** A shell-like tool answering from `answer`, counting its executions. */
const shell = (answer: (command: string) => { output: string; exitCode: number }) => {
  const ran: Array<string> = []
  const tools: ToolSet = {
    bash: tool({
      inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
      execute: async ({ command }) => {
        ran.push(command)
        return answer(command)
      }
    })
  }
  return { tools, ran }
}

/** The user messages of a recorded request's body. */
const userTexts = (server: ScriptedServer, index: number): Array<string> =>
  (server.requests[index]!.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").map((m) => String(m.content))

const withEvents = (options: LoopguardAgentOptions = {}) => {
  const events: Array<LoopguardAgentEvent> = []
  const guard = loopguardAgent({ sessionId: "s-test", ...options, onEvent: (e) => events.push(e) })
  return { guard, events }
}

describe("loopguardAgent in a ToolLoopAgent", () => {
  test(
    "the same tool call on every step: a note, a reminder the server receives, a stop by the 8th execution",
    async () => {
      const server = await serve(() => toolCallStream("bash", { command: "ls -la" }))
      const { tools, ran } = shell(() => ({ output: "total 0", exitCode: 0 }))
      const { guard, events } = withEvents()
      const agent = new ToolLoopAgent(guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(20), maxRetries: 0 }))
      const result = await agent.generate({ prompt: "list the files" })
      expect(ran.length).toBeLessThanOrEqual(8)
      expect(ran.length).toBeGreaterThanOrEqual(5)
      expect(server.requests.length).toBe(ran.length)
      const report = guard.report()
      expect([report.status, report.reason]).toEqual(["aborted", "idle"])
      const remind = events.find((e) => e.type === "reminder" && e.kind === "loop-remind")
      expect(remind).toBeDefined()
      if (remind?.type !== "reminder") throw new Error("no reminder")
      expect(userTexts(server, remind.step + 1)).toContain(remind.text)
      // The note is for one request only: the server saw it once.
      const note = events.find((e) => e.type === "reminder" && e.kind === "note")
      if (note?.type !== "reminder") throw new Error("no note")
      expect(userTexts(server, note.step + 1)).toContain(note.text)
      const stopped = result.steps[result.steps.length - 1]!.providerMetadata?.["loopguard"] as { stop?: { reason: string } } | undefined
      expect(stopped?.stop?.reason).toBe("idle")
      expect(report.incidents.some((i) => i.detector === "repeated-action" && i.action === "stop")).toBe(true)
    },
    TIMEOUT
  )
})

describe("a run that throws", () => {
  test(
    "a run the caller's own abort signal ended is reported cancelled, not as a model error",
    async () => {
      // The second step's reply stalls; the caller gives up on it.
      const server = await serve((_, i) => (i === 0 ? toolCallStream("bash", { command: "ls" }) : { ...textStream("thinking about it for a long while"), stallAfterChunks: 1 }))
      const { tools } = shell(() => ({ output: "a.txt", exitCode: 0 }))
      const { guard } = withEvents()
      const controller = new AbortController()
      const run = generateText({ ...guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(10), maxRetries: 0 }), prompt: "list the files", abortSignal: controller.signal })
      while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 20))
      controller.abort()
      await expect(run).rejects.toThrow()
      const report = guard.report()
      expect(report.reason).toBe("cancelled")
      expect(report.blockedAt).toMatch(/^step 1: the step never ended/)
    },
    TIMEOUT
  )

  test(
    "a run the caller aborted while a step's tool ran is reported cancelled, not as the step cap",
    async () => {
      const server = await serve(() => toolCallStream("bash", { command: "sleep 5" }))
      const controller = new AbortController()
      // The caller gives up while the tool runs.
      const { tools, ran } = shell(() => {
        controller.abort()
        return { output: "", exitCode: 0 }
      })
      const { guard } = withEvents()
      const run = generateText({ ...guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(10), maxRetries: 0 }), prompt: "wait", abortSignal: controller.signal })
      await run.then(
        () => {},
        () => {}
      )
      expect(ran).toEqual(["sleep 5"])
      const report = guard.report()
      expect(report.reason).toBe("cancelled")
      expect(report.blockedAt).toMatch(/^step 0: the caller's abort signal ended the run/)
    },
    TIMEOUT
  )

  test(
    "the step whose model call failed is reported as a model error, not as a finished run",
    async () => {
      const server = await serve((_, i) => (i === 0 ? toolCallStream("bash", { command: "ls" }) : { type: "error", status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } }))
      const { tools, ran } = shell(() => ({ output: "a.txt", exitCode: 0 }))
      const { guard } = withEvents()
      const agent = new ToolLoopAgent(guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(10), maxRetries: 0 }))
      await expect(agent.generate({ prompt: "list the files" })).rejects.toThrow()
      expect(ran).toEqual(["ls"])
      const report = guard.report()
      expect([report.status, report.reason]).not.toEqual(["completed", "final"])
      expect(report.reason).toBe("model_error")
      expect(report.error?.message).toContain("the step never ended")
      expect(report.blockedAt).toMatch(/^step 1: the step never ended/)
    },
    TIMEOUT
  )

  test(
    "a run whose first model call fails still names its provider and model in the report",
    async () => {
      const server = await serve([{ type: "error", status: 401, body: { error: { message: "bad key", type: "invalid_request_error" } } }])
      const { guard } = withEvents()
      const model = scriptedChatModel(server)
      await expect(generateText({ ...guard.wrap({ model, stopWhen: stepCountIs(5), maxRetries: 0 }), prompt: "hi" })).rejects.toThrow()
      const report = guard.report()
      expect(report.reason).toBe("model_error")
      const named = model as unknown as { readonly provider: string; readonly modelId: string }
      expect([report.provider, report.modelId]).toEqual([named.provider, named.modelId])
      expect(report.provider).not.toBe("unknown")
    },
    TIMEOUT
  )
})

  test(
    "a caller that stops reading a reply (a break out of textStream) is not reported as a finished run, and the message says so",
    async () => {
      const server = await serve([textStream("word ".repeat(400), { chunkSize: 5, chunkDelayMs: 2 })])
      const { guard } = withEvents()
      const result = streamText(guard.wrap({ model: scriptedChatModel(server), prompt: "say words", stopWhen: stepCountIs(5), maxRetries: 0, onError: () => {} }))
      let chunks = 0
      for await (const _ of result.textStream) if (++chunks > 3) break
      const report = guard.report()
      expect(report.status).toBe("aborted")
      expect(report.error?.message).toContain("or the caller stopped reading the reply")
      expect(report.blockedAt).toMatch(/^step 0: the step never ended/)
    },
    TIMEOUT
  )

/** The text of the reminder events of `kind`, each with the step it followed. */
const remindersOf = (events: ReadonlyArray<LoopguardAgentEvent>, kind: string) =>
  events.flatMap((e) => (e.type === "reminder" && e.kind === kind ? [{ step: e.step, text: e.text }] : []))

const PASSWORDS = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel", "iris", "juniper", "kiwi", "lemon", "mango", "nectar"]

describe("loopguardAgent with generateText and streamText", () => {
  test(
    "without a stopWhen of the caller's, a wrapped run is still bounded: the SDK's ToolLoopAgent cap of 20 steps stays beside loopguard's stop",
    async () => {
      // A new file each step: progress as the detectors read it, so only a step cap ends the run.
      const server = await serve((_, i) => toolCallStream("bash", { command: `cat src/file${i}.ts` }))
      const { tools, ran } = shell((command) => ({ output: `// ${command}\nexport const v${ran.length} = ${ran.length}`, exitCode: 0 }))
      const { guard } = withEvents()
      await generateText(guard.wrap({ model: scriptedChatModel(server), tools, prompt: "read the sources", maxRetries: 0 }))
      expect(server.requests.length).toBe(20)
    },
    TIMEOUT
  )

  test(
    "a varied retry (generateText): noted, reminded in the next request the server receives, then stopped",
    async () => {
      const server = await serve((_, i) => toolCallStream("bash", { command: `unzip -P ${PASSWORDS[i % PASSWORDS.length]} secret.zip` }))
      // The password comes back in the answer: only the varied-retry rule sees one answer in all of them.
      const { tools, ran } = shell((command) => ({ output: `${command.split(" ")[2]}: incorrect password`, exitCode: 82 }))
      // The error-storm breaker would hand the work back after a few failures first; this test is about the loop ladder.
      const { guard, events } = withEvents({ breaker: { enabled: false } })
      await generateText(guard.wrap({ model: scriptedChatModel(server), tools, prompt: "open secret.zip", stopWhen: stepCountIs(30), maxRetries: 0 }))
      const report = guard.report()
      expect(report.incidents.filter((i) => i.detector === "varied-retry").map((i) => i.action)).toEqual(["note", "remind", "stop"])
      expect(report.reason).toBe("idle")
      expect(ran.length).toBe(9)
      expect(server.requests.length).toBe(9)
      const [remind] = remindersOf(events, "loop-remind")
      expect(remind).toBeDefined()
      expect(userTexts(server, remind!.step + 1)).toContain(remind!.text)
      expect(userTexts(server, remind!.step)).not.toContain(remind!.text)
    },
    TIMEOUT
  )

  test(
    "a repeated observation (streamText): different searches, one answer; reminded, then stopped",
    async () => {
      const server = await serve((_, i) => toolCallStream("search", { query: `where is ${PASSWORDS[i % PASSWORDS.length]} defined` }))
      const ran: Array<string> = []
      const tools: ToolSet = {
        search: tool({
          inputSchema: jsonSchema<{ query: string }>({ type: "object", properties: { query: { type: "string" } } }),
          execute: async ({ query }) => (ran.push(query), "No matches found")
        })
      }
      const { guard, events } = withEvents()
      const result = streamText(guard.wrap({ model: scriptedChatModel(server), tools, prompt: "find the definition", stopWhen: stepCountIs(30), maxRetries: 0, onError: () => {} }))
      await result.consumeStream()
      const steps = await result.steps
      const report = guard.report()
      expect(report.incidents.filter((i) => i.detector === "repeated-observation").map((i) => i.action)).toEqual(["note", "remind", "stop"])
      expect(report.reason).toBe("idle")
      expect(ran.length).toBe(server.requests.length)
      expect(ran.length).toBeLessThan(30)
      const [remind] = remindersOf(events, "loop-remind")
      expect(userTexts(server, remind!.step + 1)).toContain(remind!.text)
      const last = steps[steps.length - 1]!.providerMetadata?.["loopguard"] as { stop?: { reason: string } } | undefined
      expect(last?.stop?.reason).toBe("idle")
    },
    TIMEOUT
  )

  const HEALTHY: ReadonlyArray<StreamResponse> = [
    toolCallStream("bash", { command: "cat package.json" }, { usage: { prompt_tokens: 40, completion_tokens: 9 } }),
    toolCallStream("bash", { command: "npm test" }, { usage: { prompt_tokens: 60, completion_tokens: 7 } }),
    toolCallStream("bash", { command: "git diff" }, { usage: { prompt_tokens: 80, completion_tokens: 7 } }),
    textStream("All tests pass and the diff is clean.", { usage: { prompt_tokens: 100, completion_tokens: 10 } })
  ]

  /** One healthy task, with or without the helpers; what the server received and what the caller got. */
  const healthyRun = async (guarded: boolean, mode: "stream" | "generate") => {
    const server = await serve([...HEALTHY])
    const { tools, ran } = shell((command) => ({ output: `ran ${command}`, exitCode: 0 }))
    const settings = { model: scriptedChatModel(server), tools, stopWhen: stepCountIs(10), maxRetries: 0 }
    const guard = withEvents().guard
    const agent = new ToolLoopAgent(guarded ? guard.wrap(settings) : settings)
    const text = mode === "generate" ? (await agent.generate({ prompt: "check the project" })).text : await (await agent.stream({ prompt: "check the project" })).text
    return { bodies: server.requests.map((r) => r.body as Record<string, unknown>), text, ran, report: guard.report() }
  }

  test(
    "a healthy multi-step task (ToolLoopAgent.stream) runs to its end; the server receives byte-identical requests with and without the helpers",
    async () => {
      const plain = await healthyRun(false, "stream")
      const guarded = await healthyRun(true, "stream")
      expect(guarded.bodies.length).toBe(4)
      expect(guarded.bodies.map((b) => JSON.stringify(b))).toEqual(plain.bodies.map((b) => JSON.stringify(b)))
      expect(guarded.text).toBe(plain.text)
      expect(guarded.ran).toEqual(["cat package.json", "npm test", "git diff"])
      expect([guarded.report.status, guarded.report.reason, guarded.report.incidents.length]).toEqual(["completed", "final", 0])
      expect(guarded.report.tokens).toEqual({ input: 280, output: 33, total: 313 })
      expect(guarded.report.tokensEstimated).toBe(false)
    },
    TIMEOUT
  )

  test(
    "ToolLoopAgent.generate: the same messages and tools; the middleware streams the call so its guards see every delta",
    async () => {
      const plain = await healthyRun(false, "generate")
      const guarded = await healthyRun(true, "generate")
      const { stream, stream_options, ...rest } = guarded.bodies[0]!
      expect([stream, stream_options]).toEqual([true, { include_usage: true }])
      expect(guarded.bodies.map(({ stream: _s, stream_options: _o, ...b }) => JSON.stringify(b))).toEqual(plain.bodies.map((b) => JSON.stringify(b)))
      expect(Object.keys(rest).length).toBeGreaterThan(0)
      expect([guarded.text, guarded.report.reason]).toEqual([plain.text, "final"])
    },
    TIMEOUT
  )

  test(
    "a budget of 100 tokens stops a run of two cut loops of about 200 tokens each after the first (cut steps count what they streamed)",
    async () => {
      const SENTENCE = "the build failed so I will run the tests again now"
      /** The model loops in text until the middleware cuts it (no usage: the finish never comes). */
      const cutLoop = (): StreamResponse => repeatLoop(SENTENCE, 300, { chunkDelayMs: 1 })
      const run = async (options: LoopguardAgentOptions) => {
        const server = await serve([cutLoop(), cutLoop(), textStream("done")])
        const { tools, ran } = shell(() => ({ output: "built", exitCode: 0 }))
        const { guard, events } = withEvents(options)
        const settings = guard.wrap({ model: scriptedChatModel(server), tools, prompt: "build it", stopWhen: stepCountIs(10), maxRetries: 0 })
        const result = await generateText({ ...settings, experimental_steering: guard.steering() })
        return { server, ran, report: guard.report(), result, events }
      }
      const budgeted = await run({ loop: { tokenBudget: 100 } })
      expect(budgeted.server.requests.length).toBe(1)
      await budgeted.server.requests[0]!.done
      expect(budgeted.server.requests[0]!.outcome).toBe("client-closed")
      expect([budgeted.report.status, budgeted.report.reason]).toEqual(["aborted", "budget_tokens"])
      expect(budgeted.report.tokensEstimated).toBe(true)
      expect(budgeted.report.tokens.output).toBeGreaterThanOrEqual(100)
      expect(budgeted.report.tokens.output).toBeLessThan(400)
      const cut = budgeted.result.steps[0]!.providerMetadata?.["loopguard"] as { tripped?: string; usage?: { estimated: boolean }; stop?: { reason: string }; sessionId?: string; provider?: string; modelId?: string }
      expect([cut.tripped, cut.usage?.estimated, cut.stop?.reason]).toEqual(["text-repeat", true, "budget_tokens"])
      expect([cut.sessionId, cut.provider, cut.modelId]).toEqual(["s-test", "scripted.chat", "scripted-model"])
      // Without a budget the same script runs both cut loops: each is cut and reminded (REMIND, then REPLAN), and the run goes on.
      const free = await run({})
      expect(free.server.requests.length).toBe(3)
      expect(free.report.incidents.filter((i) => i.detector === "text-repeat").map((i) => i.action)).toEqual(["cut", "cut"])
      expect(free.report.retries).toEqual({ "text-repeat-remind": 1, "text-repeat-replan": 1 })
      expect(free.report.tokens.output).toBeGreaterThanOrEqual(2 * budgeted.report.tokens.output - 20)
      expect([free.report.reason, free.result.text]).toEqual(["final", "done"])
      // The reminder went to the next request, and the looping reply was cropped from it.
      const [remind] = remindersOf(free.events, "text-repeat-remind")
      expect(userTexts(free.server, 1)).toEqual(["build it", remind!.text])
      expect(JSON.stringify(free.server.requests[1]!.body.messages)).not.toContain(SENTENCE)
    },
    TIMEOUT
  )

  test(
    "a cut loop without steering ends the run with a stop event and no reminder; a stream reset mid-way still counts what it streamed",
    async () => {
      const SENTENCE = "the build failed so I will run the tests again now"
      const server = await serve([repeatLoop(SENTENCE, 300, { chunkDelayMs: 1 }), { ...textStream("some words before the connection drops ".repeat(20), { chunkSize: 8 }), resetAfterChunks: 60 }])
      const { tools } = shell(() => ({ output: "built", exitCode: 0 }))
      const cut = withEvents()
      await generateText(cut.guard.wrap({ model: scriptedChatModel(server), tools, prompt: "build it", stopWhen: stepCountIs(10), maxRetries: 0 }))
      expect(cut.events.filter((e) => e.type === "reminder")).toEqual([])
      expect(cut.events.filter((e) => e.type === "stop").map((e) => e.type === "stop" && e.reason)).toEqual(["text_repeat"])
      expect(cut.guard.report().reason).toBe("text_repeat")
      const failed = withEvents()
      const thrown = await generateText(failed.guard.wrap({ model: scriptedChatModel(server), tools, prompt: "again", maxRetries: 0 })).catch((e: unknown) => e)
      expect(thrown).toBeInstanceOf(Error)
      const report = failed.guard.report()
      expect([report.reason, report.stepsUsed, report.tokensEstimated]).toEqual(["model_error", 0, true])
      // 60 chunks of 8 characters streamed before the reset: about 120 tokens, none from the server.
      expect(report.tokens.output).toBeGreaterThan(60)
      expect(report.tokens.output).toBeLessThan(240)
    },
    TIMEOUT
  )

  test(
    "a steering object an earlier call used does not count for the next call: that call's cut loop ends it",
    async () => {
      const loop = () => repeatLoop("the build failed so I will run the tests again now", 300, { chunkDelayMs: 1 })
      const server = await serve([loop(), textStream("done"), loop()])
      const { guard, events } = withEvents()
      const settings = guard.wrap({ model: scriptedChatModel(server), prompt: "build it", stopWhen: stepCountIs(10), maxRetries: 0 })
      const steered = await generateText({ ...settings, experimental_steering: guard.steering() })
      expect([steered.text, guard.report().reason]).toEqual(["done", "final"])
      await generateText(settings)
      expect([server.requests.length, guard.report().reason]).toEqual([3, "text_repeat"])
      expect(events.filter((e) => e.type === "stop").map((e) => e.type === "stop" && e.reason)).toEqual(["text_repeat"])
    },
    TIMEOUT
  )

  test(
    "one guard over two runs: the second run starts from nothing (a shorter step list is a new run)",
    async () => {
      const server = await serve((_, i) => (i % 2 === 0 ? toolCallStream("bash", { command: "ls" }) : textStream("done")))
      const { tools } = shell(() => ({ output: "a.txt", exitCode: 0 }))
      const { guard } = withEvents()
      const settings = guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(10), maxRetries: 0 })
      const warn = spyOn(console, "warn").mockImplementation(() => {})
      try {
        await generateText({ ...settings, prompt: "first" })
        await generateText({ ...settings, prompt: "second" })
        expect(warn).not.toHaveBeenCalled()
      } finally {
        warn.mockRestore()
      }
      const report = guard.report()
      expect([report.stepsUsed, report.reason, report.incidents.length]).toEqual([2, "final", 0])
    },
    TIMEOUT
  )

  test("a run started over on its own first step (a shorter step list) is not taken for a second run: nothing said", () => {
    const stepOf = (text: string) => ({ content: [{ type: "text", text }], finishReason: "tool-calls", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, model: { provider: "p.chat", modelId: "m" } }) as never
    const [first, second] = [stepOf("reading the file"), stepOf("editing the file")]
    const { guard } = withEvents()
    const warn = spyOn(console, "warn").mockImplementation(() => {})
    try {
      for (const steps of [[first, second], [first], [first, second]]) guard.stopWhen({ steps } as never)
      expect(warn).not.toHaveBeenCalled()
      // Another run's step in between, then the first run's again: that is two runs at once.
      guard.stopWhen({ steps: [stepOf("another run")] } as never)
      guard.stopWhen({ steps: [first, second] } as never)
      expect(warn).toHaveBeenCalledTimes(1)
    } finally {
      warn.mockRestore()
    }
  })

  test(
    "one guard over two runs at once: said once on the console (each switch judges a run again, so its events repeat)",
    async () => {
      const server = await serve(() => toolCallStream("bash", { command: "ls" }, { chunkDelayMs: 2 }))
      const { tools } = shell(() => ({ output: "a.txt", exitCode: 0 }))
      const { guard, events } = withEvents()
      const settings = guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(6), maxRetries: 0 })
      const warn = spyOn(console, "warn").mockImplementation(() => {})
      try {
        const runs = await Promise.all([generateText({ ...settings, prompt: "first" }), generateText({ ...settings, prompt: "second" })])
        expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringContaining("one loopguardAgent is serving two runs at once")])
        // What the warning is about: more steps reported finished than the two runs took.
        const steps = runs.reduce((n, r) => n + r.steps.length, 0)
        expect(events.filter((e) => e.type === "step.finished").length).toBeGreaterThan(steps)
      } finally {
        warn.mockRestore()
      }
      // One guard per run: the same two runs at once, each stopped by its own judge, and nothing said.
      const guards = [withEvents().guard, withEvents().guard]
      const quiet = spyOn(console, "warn").mockImplementation(() => {})
      try {
        await Promise.all(guards.map((g, i) => generateText(g.wrap({ model: scriptedChatModel(server), tools, prompt: `run ${i}`, stopWhen: stepCountIs(20), maxRetries: 0 }))))
        expect(quiet).not.toHaveBeenCalled()
      } finally {
        quiet.mockRestore()
      }
      for (const g of guards) expect(g.report().incidents.length).toBeGreaterThan(0)
    },
    TIMEOUT
  )
})

describe("ids on the agent helpers' events", () => {
  test(
    "two providers in one process, one event callback: every event names its session, provider and model",
    async () => {
      const one = await serve(() => toolCallStream("bash", { command: "ls" }), { modelId: "model-one" })
      const two = await serve(() => toolCallStream("bash", { command: "ls" }), { modelId: "model-two" })
      const events: Array<LoopguardAgentEvent> = []
      const { tools } = shell(() => ({ output: "a.txt", exitCode: 0 }))
      const run = (server: ScriptedServer, sessionId: string) => {
        const guard = loopguardAgent({ sessionId, onEvent: (e) => events.push(e) })
        return generateText(guard.wrap({ model: scriptedChatModel(server), tools, prompt: "go", stopWhen: stepCountIs(12), maxRetries: 0 }))
      }
      await Promise.all([run(one, "s-one"), run(two, "s-two")])
      const ids = new Set(events.map((e) => `${e.sessionId}|${e.provider}|${e.modelId}`))
      expect([...ids].sort()).toEqual(["s-one|scripted.chat|model-one", "s-two|scripted.chat|model-two"])
      expect(events.filter((e) => e.type === "stop").length).toBe(2)
    },
    TIMEOUT
  )
})

describe("usage the server does not send", () => {
  /** A tool call, then an answer, with the server's own usage on each reply or none at all. */
  const run = async (options: LoopguardAgentOptions, usage?: StreamResponse["usage"]) => {
    const scripted = usage !== undefined ? { usage } : {}
    const server = await serve([toolCallStream("bash", { command: "ls" }, scripted), textStream("There is one file, a.txt.", scripted)], { omitUsage: true })
    const { tools } = shell(() => ({ output: "a.txt", exitCode: 0 }))
    const { guard, events } = withEvents(options)
    await generateText(guard.wrap({ model: scriptedChatModel(server), tools, prompt: "What files are there?", stopWhen: stepCountIs(5), maxRetries: 0 }))
    const steps = events.flatMap((e) => (e.type === "step.finished" ? [e.tokens] : []))
    return { server, report: guard.report(), steps }
  }

  test(
    "a step is billed its prompt and output estimated, so a small token budget stops the run",
    async () => {
      const { server, report, steps } = await run({ loop: { tokenBudget: 10 } })
      expect([server.requests.length, report.reason, report.tokensEstimated]).toEqual([1, "budget_tokens", true])
      // The prompt as sent (messages and the tool's schema) is far over 10 tokens: without it the call's 4 tokens would pass.
      expect(report.tokens.input).toBeGreaterThan(10)
      expect(steps).toEqual([{ input: report.tokens.input, output: report.tokens.output, estimated: true }])
    },
    TIMEOUT
  )

  test(
    "the server's own counts stand exactly when it sends them",
    async () => {
      const { report, steps } = await run({ loop: { tokenBudget: 1000 } }, { prompt_tokens: 7, completion_tokens: 3 })
      expect([report.reason, report.stepsUsed, report.tokensEstimated]).toEqual(["final", 2, false])
      expect(report.tokens).toEqual({ input: 14, output: 6, total: 20 })
      expect(steps).toEqual([
        { input: 7, output: 3, estimated: false },
        { input: 7, output: 3, estimated: false }
      ])
    },
    TIMEOUT
  )
})
