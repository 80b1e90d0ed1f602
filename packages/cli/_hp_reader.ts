import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { LLM } from "@loopguard/effect"
import { Effect, Stream } from "effect"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { streamText } from "ai"
const url = process.argv[2]!
const bare = async () => {
  const provider = createOpenAICompatible({ name: "bare", baseURL: url, includeUsage: true })
  const result = streamText({ model: provider.chatModel("scripted-model"), messages: [{ role: "user", content: "go" }], maxRetries: 0, onError: () => {} })
  let n = 0
  for await (const part of result.fullStream) if (part.type === "text-delta") n += part.text.length
  return n
}
const layer = layerOpenAICompatible({ baseURL: url, modelId: "scripted-model" })
const lg = () => Effect.runPromise(Effect.gen(function* () {
  const llm = yield* LLM
  let n = 0
  yield* llm.stream({ messages: [{ role: "user", text: "go" }], tools: [] } as any).pipe(Stream.runForEachArray((arr) => Effect.sync(() => { for (const p of arr) if (p.type === "text-delta") n += p.text.length })))
  return n
}).pipe(Effect.provide(layer)))
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const rows: Array<[number, number]> = []
for (let i = 0; i < 8; i++) {
  const order = i % 2 === 0 ? ["bare", "lg"] : ["lg", "bare"]
  const r: Record<string, number> = {}
  for (const k of order) { const c = cpu(); await (k === "bare" ? bare() : lg()); r[k] = cpu() - c }
  if (i > 0) rows.push([r.bare!, r.lg!])
}
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log("cpu ms bare", med(rows.map((r) => r[0])).toFixed(0), "lg", med(rows.map((r) => r[1])).toFixed(0), "ratio", med(rows.map((r) => r[1] / r[0])).toFixed(3))
