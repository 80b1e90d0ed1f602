/**
 * The proxy over HTTP, per protocol, through each protocol's real AI SDK provider and the
 * scripted server: a repeating reply is cut and still ends well-formed, a tool call repeated by an
 * agent loop is stopped by the 8th run, a 429 twice (with Retry-After) never reaches the client, nor
 * does an error event or a stall after the opening events and before any content,
 * and a conversation the proxy stopped goes on once the user writes again.
 */
import { repeatLoop, textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from "ai"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { afterEach, describe, expect, test } from "bun:test"
import { CUT_MARK, STOP_MARK } from "./notices.js"
import type { ProtocolName } from "./protocol.js"
import { modelFor, PROTOCOLS, records, startRig, HTTP_STACKS, type Rig } from "./proxy.fixture.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const bashTool = (runs: { count: number }) =>
  tool({
    description: "run a shell command",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
    execute: async () => {
      runs.count += 1
      return "total 0"
    }
  })

/** The first attempt failed before any content, the second answered: the client sees only the second, "Back to work." */
const expectOneRetryThenClean = async (rig: Rig, protocol: ProtocolName): Promise<void> => {
  const result = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "hi", maxRetries: 0 })
  expect(await result.text).toBe("Back to work.")
  expect(rig.server.requests.length).toBe(2)
  expect(records(rig.events)[0]?.retries).toBe(1)
}

/** An overloaded error event, as each protocol sends one in its stream. */
const OVERLOADED = {
  chat: '{"error":{"message":"Overloaded","type":"server_error","code":"overloaded"}}',
  responses: '{"type":"error","code":"server_is_overloaded","message":"Overloaded"}',
  messages: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  gemini: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}'
}

describe.each(HTTP_STACKS)("%s http stack", (stack) =>
  describe.each(PROTOCOLS)("%s through the proxy", (protocol) => {
  test("a repeating reply is cut, the upstream request closed, and the client's stream ends well-formed", async () => {
    rig = await startRig([repeatLoop("the same sentence comes back once more", 400, { finish: "stop", chunkDelayMs: 1 })], { proxy: { httpStack: stack } })
    const result = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "write" })
    const text = await result.text
    expect(text).toContain(CUT_MARK)
    expect(text.length).toBeLessThan(400 * 20)
    expect(await result.finishReason).toBe("stop")
    await rig.server.requests[0]!.done
    expect(rig.server.requests[0]!.outcome).toBe("client-closed")
    const [record] = records(rig.events)
    expect(record?.outcome).toBe("cut")
  }, 60_000)

  test("not streamed: a repeating reply is cut in the JSON reply; a healthy one passes whole", async () => {
    rig = await startRig([repeatLoop("the same sentence comes back once more", 400, { finish: "stop" }), textStream("A short healthy answer.")], { proxy: { httpStack: stack } })
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const cut = await generateText({ model, prompt: "write" })
    expect(cut.text).toContain(CUT_MARK)
    expect(cut.text.length).toBeLessThan(400 * 20)
    expect(cut.finishReason).toBe("stop")
    const healthy = await generateText({ model, prompt: "answer" })
    expect(healthy.text).toBe("A short healthy answer.")
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["cut", "completed"])
  }, 60_000)

  test("a call whose arguments loop (a file written over and over) never reaches the agent, streamed or not: the notice does", async () => {
    const fragment = "function step() {\n  counter += 1\n  render(counter)\n}\n\n"
    const looping = () => toolCallStream("write", { path: "src/loop.ts", content: fragment.repeat(300) }, { pieces: 120 })
    rig = await startRig([looping(), looping()], { proxy: { httpStack: stack } })
    const writes = { count: 0 }
    const write = tool({
      description: "write a file",
      inputSchema: jsonSchema<{ path: string; content: string }>({ type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] }),
      execute: async () => {
        writes.count += 1
        return "written"
      }
    })
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const streamed = streamText({ model, prompt: "write the loop", tools: { write }, stopWhen: stepCountIs(1) })
    expect(await streamed.text).toContain(CUT_MARK)
    const whole = await generateText({ model, prompt: "write the loop", tools: { write }, stopWhen: stepCountIs(1) })
    expect(whole.text).toContain(CUT_MARK)
    expect(writes.count).toBe(0)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["cut", "cut"])
  }, 60_000)

  test("an agent loop repeating one tool call is stopped by its 8th run, with a stop answer and no tool call", async () => {
    rig = await startRig(() => toolCallStream("bash", { command: "ls -la" }), { proxy: { httpStack: stack } })
    const runs = { count: 0 }
    const result = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "list the files", tools: { bash: bashTool(runs) }, stopWhen: stepCountIs(30) })
    const text = await result.text
    expect(runs.count).toBeGreaterThanOrEqual(3)
    expect(runs.count).toBeLessThanOrEqual(8)
    expect(text).toContain(STOP_MARK)
    expect(await result.finishReason).toBe("stop")
    const last = records(rig.events).at(-1)
    expect(last?.action).toBe("stop")
    // The stop was answered by the proxy: the upstream saw one request per run of the tool, and the first.
    expect(rig.server.requests.length).toBe(runs.count)
  }, 60_000)

  test("429 twice with Retry-After: retried inside the proxy, the client sees one clean answer", async () => {
    const busy = { type: "error" as const, status: 429, headers: { "retry-after-ms": "150" } }
    rig = await startRig([busy, busy, textStream("All good after the wait.")], { proxy: { httpStack: stack } })
    const result = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "hi", maxRetries: 0 })
    expect(await result.text).toBe("All good after the wait.")
    expect(rig.server.requests.length).toBe(3)
    expect(records(rig.events)[0]?.retries).toBe(2)
    expect(rig.events.filter((e) => e.type === "retry").length).toBe(2)
  }, 60_000)

  test("an overloaded error event before any content is retried like a 503: the client sees one clean answer", async () => {
    const raw = OVERLOADED[protocol]
    rig = await startRig([{ type: "stream", chunks: [{ raw }], finish: null }, textStream("Back to work.")], { proxy: { httpStack: stack } })
    await expectOneRetryThenClean(rig, protocol)
  }, 60_000)

  /** An event that only opens the reply, in each protocol (an assistant role, a status, a ping). */
  const openingOnly = {
    chat: '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}',
    responses: '{"type":"response.in_progress","response":{"id":"r1","status":"in_progress"}}',
    messages: '{"type":"ping"}',
    gemini: '{"candidates":[{"content":{"role":"model","parts":[]},"index":0}],"responseId":"g1"}'
  }

  test("an overloaded error event after the opening events, before any content, is retried: the client sees one clean answer", async () => {
    const raw = OVERLOADED[protocol]
    // The pause puts the error in a read of its own, after the opening events were read.
    rig = await startRig([{ type: "stream", chunks: [{ raw: openingOnly[protocol] }, { raw }], finish: null, chunkDelayMs: 150 }, textStream("Back to work.")], { proxy: { httpStack: stack } })
    await expectOneRetryThenClean(rig, protocol)
  }, 60_000)

  test("an upstream that opens the reply and then goes silent is retried within the chunk timeout: the client sees one clean answer", async () => {
    rig = await startRig([{ type: "stream", chunks: [{ raw: openingOnly[protocol] }, { text: "never sent" }], stallAfterChunks: 1 }, textStream("Back to work.")], {
      proxy: { httpStack: stack },
      config: (c) => ({ ...c, stream: { ...c.stream, chunkTimeoutMs: 400 } })
    })
    await expectOneRetryThenClean(rig, protocol)
  }, 60_000)

  test("after a stop, a new user message lets the conversation go on upstream", async () => {
    rig = await startRig((body, index) => (index < 30 && !JSON.stringify(body).includes("summarise what you did") ? toolCallStream("bash", { command: "ls -la" }) : textStream("Here is the summary.")), { proxy: { httpStack: stack } })
    const runs = { count: 0 }
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const first = streamText({ model, prompt: "list the files", tools: { bash: bashTool(runs) }, stopWhen: stepCountIs(30) })
    expect(await first.text).toContain(STOP_MARK)
    const history = (await first.response).messages
    const upstreamBefore = rig.server.requests.length
    const second = streamText({ model, messages: [{ role: "user", content: "list the files" }, ...history, { role: "user", content: "stop and summarise what you did" }], tools: { bash: bashTool(runs) } })
    expect(await second.text).toBe("Here is the summary.")
    expect(rig.server.requests.length).toBe(upstreamBefore + 1)
    expect(records(rig.events).at(-1)?.action).not.toBe("stop")
    expect(rig.server.requests.filter((r) => JSON.stringify(r.body).includes("_loopguard_"))).toEqual([])
  }, 60_000)

  test("proxy.maxTurnSteps 3: the third step is asked for with tools off and the model wraps up; one that calls a tool all the same is stopped", async () => {
    const toolsOff = (body: any) =>
      body?.tool_choice === "none" || body?.tool_choice?.type === "none" || body?.toolConfig?.functionCallingConfig?.mode === "NONE"
    const capped = (c: LoopguardConfig) => ({ ...c, proxy: { ...c.proxy, maxTurnSteps: 3 } })
    rig = await startRig((body, index) => (toolsOff(body) ? textStream("Wrapped up: two folders listed.") : toolCallStream("bash", { command: `ls dir${index}` })), { config: capped, proxy: { httpStack: stack } })
    const runs = { count: 0 }
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const wrapped = streamText({ model, prompt: "look around", tools: { bash: bashTool(runs) }, stopWhen: stepCountIs(30) })
    expect(await wrapped.text).toBe("Wrapped up: two folders listed.")
    expect([runs.count, rig.server.requests.map((r) => toolsOff(r.body))]).toEqual([2, [false, false, true]])
    expect(records(rig.events).map((r) => r.action)).toEqual(["pass", "pass", "remind"])
    await rig.close()
    // An upstream that calls a tool all the same: the call runs, and the next request is answered with a stop.
    rig = await startRig((_, index) => toolCallStream("bash", { command: `ls dir${index}` }), { config: capped, proxy: { httpStack: stack } })
    runs.count = 0
    const stopped = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "look around", tools: { bash: bashTool(runs) }, stopWhen: stepCountIs(30) })
    expect(await stopped.text).toContain("proxy.maxTurnSteps")
    expect([runs.count, rig.server.requests.length, records(rig.events).at(-1)?.action]).toEqual([3, 3, "stop"])
  }, 60_000)

  test("a harness that answers every stop with the same canned words gets one more round, then the stop holds without going upstream", async () => {
    rig = await startRig(() => toolCallStream("bash", { command: "ls -la" }), { proxy: { httpStack: stack } })
    const runs = { count: 0 }
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    let messages: Array<ModelMessage> = [{ role: "user", content: "list the files" }]
    const rounds: Array<{ runs: number; upstream: number }> = []
    for (let round = 0; round < 4; round++) {
      const before = { runs: runs.count, upstream: rig.server.requests.length }
      const result = streamText({ model, messages, tools: { bash: bashTool(runs) }, stopWhen: stepCountIs(30) })
      expect(await result.text).toContain(STOP_MARK)
      messages = [...messages, ...(await result.response).messages, { role: "user", content: "Please continue." }]
      rounds.push({ runs: runs.count - before.runs, upstream: rig.server.requests.length - before.upstream })
    }
    // The first stop and the first "Please continue." are a person's turn as far as anyone can tell: the loop is stopped twice.
    expect(rounds.slice(0, 2).every((r) => r.runs >= 3 && r.runs <= 8)).toBe(true)
    // Then the same words again: answered by the proxy, nothing run, nothing sent upstream.
    expect(rounds.slice(2)).toEqual([{ runs: 0, upstream: 0 }, { runs: 0, upstream: 0 }])
    // A client that names earlier items by id (Responses with store) named the proxy's answers: spelled out before going upstream.
    expect(rig.server.requests.filter((r) => JSON.stringify(r.body).includes("_loopguard_"))).toEqual([])
  }, 60_000)
  })
)
