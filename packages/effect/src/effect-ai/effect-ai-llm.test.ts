import { type StreamPart } from "@loopguard/core/model"
import { decide } from "@loopguard/core/retry"
import { describe, expect, test } from "bun:test"
import { Duration, Effect, Layer, Stream } from "effect"
import { AiError, Tool } from "effect/ai"
import { LLM, LlmError, type LlmRequest, type ToolSpec } from "../llm/LLM.js"
import { layerFromEffectAi } from "./effect-ai-llm.js"
import { finishPart, makeFakeModel, textTurn, toolTurn, usage, type ScriptedTurn } from "./fake-model.js"

const bash: ToolSpec = {
  name: "bash",
  description: "run a command",
  inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }
}

const ask = (text: string, tools: ReadonlyArray<ToolSpec> = []): LlmRequest => ({
  system: "You are careful.",
  messages: [{ role: "user", text }],
  tools
})

/** Runs one request through `layerFromEffectAi` over a scripted model; keeps what streamed before a failure. */
const collect = async (script: ReadonlyArray<ScriptedTurn>, request: LlmRequest, outputCap?: (n: number) => void) => {
  const fake = makeFakeModel(script)
  const layer = layerFromEffectAi({
    providerId: "fake",
    modelId: "fake-1",
    ...(outputCap
      ? { outputCap: (n: number) => <A, E>(s: Stream.Stream<A, E>) => (outputCap(n), s) }
      : {})
  }).pipe(Layer.provide(fake.layer))
  const parts: Array<StreamPart> = []
  const program = Effect.gen(function* () {
    const llm = yield* LLM
    return yield* llm.stream(request).pipe(
      Stream.runForEach((p) => Effect.sync(() => parts.push(p))),
      Effect.flip,
      Effect.option
    )
  })
  const failure = await Effect.runPromise(Effect.provide(program, layer))
  return { parts, error: failure._tag === "Some" ? failure.value : undefined, calls: fake.calls }
}

const partsOf = (r: Awaited<ReturnType<typeof collect>>): Array<StreamPart> => {
  if (r.error !== undefined) throw new Error(`stream failed: ${r.error.message}`)
  return r.parts
}

const rateLimited = () =>
  AiError.make({
    module: "OpenAiClient",
    method: "streamRequest",
    reason: new AiError.RateLimitError({
      http: { response: { status: 429, headers: { "Retry-After": "7", "x-request-id": "abc" } }, body: '{"error":{"message":"slow down","code":"tpm_limit"}}' }
    })
  })

describe("layerFromEffectAi", () => {
  test("a text answer becomes text deltas and a finish with usage", async () => {
    const turn = textTurn(["Hel", "", "lo"])
    const r = await collect([{ parts: [...turn.parts.slice(0, -1), usage(12, 3)] }], ask("hi"))
    expect(partsOf(r)).toEqual([
      { type: "start" },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "finish", finish: "stop", usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 } }
    ])
  })

  test("the prompt carries the system text and the user turn; no tools are offered when none are given", async () => {
    const r = await collect([textTurn(["ok"])], ask("fix the test"))
    const call = r.calls[0]!
    expect(call.prompt.content.map((m) => m.role)).toEqual(["system", "user"])
    expect(call.prompt.content[0]!.content).toBe("You are careful.")
    expect(call.prompt.content[1]!.content).toMatchObject([{ type: "text", text: "fix the test" }])
    expect(call.tools).toEqual([])
  })

  test("tools are sent with their raw JSON schema and a tool call arrives with its parsed input", async () => {
    const r = await collect([toolTurn("c1", "bash", { command: "ls -la" })], ask("list", [bash]))
    const call = r.calls[0]!
    expect(call.tools.map((t) => t.name)).toEqual(["bash"])
    expect(Tool.getJsonSchema(call.tools[0]!)).toEqual(bash.inputSchema)
    expect(Tool.getDescription(call.tools[0]!)).toBe("run a command")
    expect(partsOf(r)).toEqual([
      { type: "tool-input-start", id: "c1", name: "bash" },
      { type: "tool-input-delta", id: "c1", delta: '{"command":"ls -la"}' },
      { type: "tool-call", id: "c1", name: "bash", input: { command: "ls -la" } },
      { type: "finish", finish: "tool-calls" }
    ])
  })

  test("cut-off argument text is not completed: the raw text stays and the call carries the parse error", async () => {
    const raw = '{"command": "ls'
    const r = await collect([toolTurn("c2", "bash", raw)], ask("list", [bash]))
    const call = partsOf(r).find((p) => p.type === "tool-call")
    expect(call).toMatchObject({ type: "tool-call", id: "c2", name: "bash", input: raw, inputText: raw })
    expect(call?.type === "tool-call" ? call.argumentsError : undefined).toContain("cut off")
  })

  test("argument text with a benign slip is repaired and flagged, the raw text kept", async () => {
    const raw = "{'command': 'ls',}"
    const r = await collect([toolTurn("c2", "bash", raw)], ask("list", [bash]))
    const call = partsOf(r).find((p) => p.type === "tool-call")
    expect(call).toEqual({ type: "tool-call", id: "c2", name: "bash", input: { command: "ls" }, inputText: raw, argumentsRepaired: true })
  })

  test("a call to an undeclared tool reaches loopguard instead of failing the stream", async () => {
    const r = await collect([toolTurn("c3", "edit_file", { path: "a.ts" })], ask("edit", [bash]))
    expect(partsOf(r)).toContainEqual({ type: "tool-call", id: "c3", name: "edit_file", input: { path: "a.ts" } })
  })

  test("history: text, reasoning and finished tool calls go to the assistant, results follow as a tool message", async () => {
    const request: LlmRequest = {
      messages: [
        { role: "user", text: "go" },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "think" },
            { type: "text", text: "running" },
            { type: "tool", callId: "a", name: "bash", input: { command: "ls" }, state: "completed", output: "x.ts" },
            { type: "tool", callId: "b", name: "bash", input: { command: "false" }, state: "completed", output: "", exitCode: 1 },
            { type: "tool", callId: "c", name: "bash", input: { command: "rm" }, state: "error", error: "denied" },
            { type: "tool", callId: "d", name: "bash", input: {}, state: "pending" }
          ]
        },
        { role: "user", text: "and?" }
      ],
      tools: [bash]
    }
    const r = await collect([textTurn(["done"])], request)
    const content = r.calls[0]!.prompt.content
    expect(content.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"])
    expect(content[1]!.content).toMatchObject([
      { type: "reasoning", text: "think" },
      { type: "text", text: "running" },
      { type: "tool-call", id: "a", name: "bash", params: { command: "ls" } },
      { type: "tool-call", id: "b", name: "bash", params: { command: "false" } },
      { type: "tool-call", id: "c", name: "bash", params: { command: "rm" } }
    ])
    expect(content[2]!.content).toMatchObject([
      { type: "tool-result", id: "a", isFailure: false, result: "x.ts" },
      { type: "tool-result", id: "b", isFailure: false, result: "\n[exit code 1]" },
      { type: "tool-result", id: "c", isFailure: true, result: "Error: denied" }
    ])
  })

  test("an AiError fails the stream with an LlmError carrying status, headers, body code and retry hint", async () => {
    const r = await collect([{ parts: [], fail: rateLimited() }], ask("hi"))
    expect(r.error).toBeInstanceOf(LlmError)
    const n = r.error!.error
    expect(n.status).toBe(429)
    expect(n.name).toBe("RateLimitError")
    expect(n.headers).toEqual({ "retry-after": "7", "x-request-id": "abc" })
    expect(n.code).toBe("tpm_limit")
    expect(n.isRetryable).toBe(true)
    const verdict = decide(n)
    expect(verdict.kind).toBe("rate_limit")
    expect(verdict.serverDelayMs).toBe(7000)
  })

  test("a reason without a provider code gets one the classifier knows", async () => {
    const quota = AiError.make({ module: "C", method: "m", reason: new AiError.QuotaExhaustedError({}) })
    const r = await collect([{ parts: [], fail: quota }], ask("hi"))
    expect(r.error!.error.code).toBe("insufficient_quota")
    expect(decide(r.error!.error)).toMatchObject({ retryable: false, kind: "terminal" })
  })

  test("text already streamed is delivered before the failure", async () => {
    const r = await collect([{ parts: textTurn(["partial"]).parts.slice(0, 3), fail: rateLimited() }], ask("hi"))
    expect(r.parts).toEqual([{ type: "start" }, { type: "text-delta", text: "partial" }])
    expect(r.error?.error.status).toBe(429)
  })

  test("an error part becomes a loopguard error part", async () => {
    const r = await collect([{ parts: [{ type: "text-delta", id: "t", delta: "a" }, { type: "error", error: rateLimited() }, finishPart("error")] }], ask("hi"))
    const parts = partsOf(r)
    expect(parts[1]).toMatchObject({ type: "error", error: { status: 429, name: "RateLimitError" } })
    expect(parts[2]).toEqual({ type: "finish", finish: "error" })
  })

  test("a transport failure reads as a network error; retryAfter without a header becomes retry-after-ms", async () => {
    const net = AiError.make({
      module: "Client",
      method: "stream",
      reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "http://x/v1", description: "socket closed" })
    })
    const r1 = await collect([{ parts: [], fail: net }], ask("hi"))
    const n1 = r1.error?.error
    expect(n1?.name).toBe("NetworkError")
    expect(decide(n1!).kind).toBe("network")

    const limited = AiError.make({ module: "C", method: "m", reason: new AiError.RateLimitError({ retryAfter: Duration.seconds(3) }) })
    const r2 = await collect([{ parts: [], fail: limited }], ask("hi"))
    const n2 = r2.error?.error
    expect(n2?.headers?.["retry-after-ms"]).toBe("3000")
    expect(decide(n2!)).toMatchObject({ kind: "rate_limit", serverDelayMs: 3000 })
  })

  test("maxOutputTokens reaches the provider only through the outputCap hook", async () => {
    const seen: Array<number> = []
    await collect([textTurn(["a"])], { ...ask("hi"), maxOutputTokens: 256 }, (n) => seen.push(n))
    await collect([textTurn(["a"])], ask("hi"), (n) => seen.push(n))
    expect(seen).toEqual([256])
  })
})

describe("layerFromEffectAi redaction", () => {
  const KEY = "effect-ai-key-0123456789"
  const echoing = () =>
    AiError.make({
      module: "OpenAiClient",
      method: "streamRequest",
      reason: new AiError.RateLimitError({
        http: { response: { status: 429, headers: { "x-echo": `Bearer ${KEY}` } }, body: `{"error":{"message":"bad key ${KEY}, authorization: Bearer ${KEY}"}}` }
      })
    })
  const run = async (script: ReadonlyArray<ScriptedTurn>) => {
    const fake = makeFakeModel(script)
    const layer = layerFromEffectAi({ providerId: "fake", modelId: "fake-1", secrets: [KEY] }).pipe(Layer.provide(fake.layer))
    const parts: Array<StreamPart> = []
    const program = Effect.gen(function* () {
      return yield* (yield* LLM).stream(ask("hi")).pipe(
        Stream.runForEach((p) => Effect.sync(() => parts.push(p))),
        Effect.flip,
        Effect.option
      )
    })
    const failure = await Effect.runPromise(Effect.provide(program, layer))
    return JSON.stringify({ parts, failure })
  }

  test("the configured key and Bearer credentials are removed from failures and error parts", async () => {
    const failed = await run([{ parts: [], fail: echoing() }])
    const errorPart = await run([{ parts: [{ type: "error", error: echoing() }, finishPart("error")] }])
    for (const text of [failed, errorPart]) {
      expect(text).toContain("429")
      expect(text).toContain("[REDACTED]")
      expect(text).not.toContain(KEY)
    }
  })
})
