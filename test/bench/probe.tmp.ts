import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { layerOpenAICompatible, makeAiSdkLlm } from "@loopguard/ai-sdk"
import { startScriptedServer, textStream } from "@loopguard/ai-sdk/testing"
import { ConfigService, DEFAULT_CONFIG, Events, layerJsonlStore, loopguardLayer, Permission, SessionProcessor, Tools, LLM } from "@loopguard/effect"
import { streamText } from "ai"
import { Effect, Layer, Stream } from "effect"
import { prose } from "/work/wt-perf/test/bench/guarded-step.ts"
const text = prose(30000)
const server = await startScriptedServer(() => textStream(text, { chunkSize: Math.ceil(text.length / 10000) }))
const baseURL = server.baseURL, modelId = server.modelId
import { MockLanguageModelV4 } from "ai/test"
const N = 40000
const deltas = Array.from({length: N}, (_, i) => `w${(i*7919%5000).toString(36)} w${(i*31%5000).toString(36)} w${(i*17%5000).toString(36)} `)
const providerStream = () => { let i = -1; return new ReadableStream({ pull(c) { if (i === -1) c.enqueue({ type: "text-start", id: "t" }); else if (i < N) c.enqueue({ type: "text-delta", id: "t", delta: deltas[i] }); else if (i === N) c.enqueue({ type: "text-end", id: "t" }); else { c.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } } }); c.close() } i++ } }) }
const model = new MockLanguageModelV4({ doStream: async () => ({ stream: providerStream() }) } as never)
const provider = { chatModel: (_: string) => model }
const bare = async () => { const t0 = process.cpuUsage().user/1000; const r = streamText({ model: provider.chatModel(modelId), messages: [{ role: "user", content: "go" }], maxRetries: 0, onError: () => {} }); for await (const p of r.fullStream) {} ; return process.cpuUsage().user/1000 - t0 }
const llm = makeAiSdkLlm({ model: provider.chatModel(modelId), providerId: "b", modelId })
const llmOnly = async () => { const t0 = process.cpuUsage().user/1000; await Effect.runPromise(Stream.runDrain(llm.stream({ messages: [{ role: "user", text: "go" }], tools: [] }))); return process.cpuUsage().user/1000 - t0 }
const full = async () => {
  const t0 = process.cpuUsage().user/1000
  const deps = Layer.mergeAll(Layer.succeed(LLM, llm), Tools.layerNone, Layer.succeed(ConfigService, DEFAULT_CONFIG), Events.layer, Permission.layerDeny, layerJsonlStore("/tmp/probe-store"))
  await Effect.runPromise(Effect.gen(function* () { const p = yield* SessionProcessor; return yield* p.process({ sessionId: "s", parentId: "u", step: 0, request: { messages: [{ role: "user", text: "go" }], tools: [] }, messageId: () => "a" }) }).pipe(Effect.provide(loopguardLayer(deps))))
  return process.cpuUsage().user/1000 - t0
}
const res: Record<string, number[]> = { bare: [], llm: [], full: [] }
for (let i = 0; i < 6; i++) { res.bare.push(await bare()); res.llm.push(await llmOnly()); res.full.push(await full()) }
for (const [k, v] of Object.entries(res)) console.log(k, v.slice(1).map(x => x.toFixed(0)).join(" "))
await server.close()
