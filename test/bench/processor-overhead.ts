/**
 * 1M tokens through the SessionProcessor with the repetition monitor vs. the same stream with no
 * monitor (repeat.enabled = false). Same process, same input, alternating runs; prints the ratio
 * of the medians (target ≤ 1.10×). In-process LLM, so the figure is the monitor's own cost, not HTTP's.
 */
import type { StreamPart } from "@loopguard/core"
import { Config, DEFAULT_CONFIG, Events, LLM, loopguardLayer, Permission, SessionProcessor, SessionStore, Tools } from "@loopguard/effect"
import { layerFromModel } from "@loopguard/ai-sdk"
import { MockLanguageModelV4 } from "ai/test"
import { Effect, Layer, Stream } from "effect"

const TOKENS = 1_000_000
const WORDS_PER_DELTA = 4

const makeParts = (): Array<StreamPart> => {
  const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`)
  let seed = 12345
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31)
  const parts: Array<StreamPart> = [{ type: "start" }]
  for (let i = 0; i < TOKENS / WORDS_PER_DELTA; i++) {
    let t = ""
    for (let j = 0; j < WORDS_PER_DELTA; j++) t += vocab[Math.floor(rnd() * vocab.length)] + " "
    parts.push({ type: "text-delta", text: t })
  }
  parts.push({ type: "finish", finish: "stop" })
  return parts
}

/** All chunks at once: no artificial delays, so the figure is per-part processing cost. */
const readableOf = <T>(chunks: ReadonlyArray<T>): ReadableStream<T> =>
  new ReadableStream<T>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    }
  })

/** The same deltas as a provider stream, so they pass through the AI SDK's streamText like live output. */
const aiSdkLlm = (parts: ReadonlyArray<StreamPart>) =>
  layerFromModel({
    providerId: "bench",
    modelId: "bench",
    model: new MockLanguageModelV4({
      doStream: async () => ({
        stream: readableOf([
            { type: "text-start", id: "t" },
            ...parts.flatMap((p) => (p.type === "text-delta" ? [{ type: "text-delta" as const, id: "t", delta: p.text }] : [])),
            { type: "text-end", id: "t" },
            {
              type: "finish",
              finishReason: { unified: "stop", raw: "stop" },
              usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: TOKENS, text: TOKENS, reasoning: 0 } }
            }
          ] as never)
      })
    } as never)
  })

const runOnce = (parts: ReadonlyArray<StreamPart>, monitor: boolean, viaAiSdk = false): Promise<number> => {
  const config = { ...DEFAULT_CONFIG, repeat: { ...DEFAULT_CONFIG.repeat, enabled: monitor } }
  const configLayer = Layer.succeed(Config, config)
  const llm = viaAiSdk ? aiSdkLlm(parts) : Layer.succeed(LLM, LLM.of({ providerId: "bench", modelId: "bench", stream: () => Stream.fromIterable(parts) }))
  const deps = Layer.mergeAll(llm, Tools.layerNone, configLayer, Events.layerCollect([]), Permission.layerDeny, SessionStore.layerMemory)
  const program = Effect.gen(function* () {
    const p = yield* SessionProcessor
    const t0 = performance.now()
    const r = yield* p.process({ sessionId: "b", parentId: "u", step: 0, request: { messages: [{ role: "user", text: "go" }], tools: [] }, messageId: () => "a" })
    if (r.outcome.type !== "continue") throw new Error(`unexpected outcome ${JSON.stringify(r.outcome)}`)
    return performance.now() - t0
  })
  return Effect.runPromise(program.pipe(Effect.provide(loopguardLayer(deps))) as Effect.Effect<number>)
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const measure = async (parts: ReadonlyArray<StreamPart>, viaAiSdk: boolean, rounds: number, label: string) => {
  await runOnce(parts, true, viaAiSdk) // warm-up
  await runOnce(parts, false, viaAiSdk)
  const withMon: Array<number> = []
  const without: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    withMon.push(await runOnce(parts, true, viaAiSdk))
    without.push(await runOnce(parts, false, viaAiSdk))
  }
  const ratio = median(withMon) / median(without)
  console.log(`SessionProcessor ${label}, ${TOKENS.toLocaleString()} tokens in ${(TOKENS / WORDS_PER_DELTA).toLocaleString()} deltas, ${rounds} alternating rounds`)
  console.log(`  with monitor:    median ${median(withMon).toFixed(0)} ms`)
  console.log(`  without monitor: median ${median(without).toFixed(0)} ms`)
  console.log(`  ratio ${ratio.toFixed(3)}x — target <= 1.10x: ${ratio <= 1.1 ? "met" : "not met"}`)
  return ratio
}

export const main = async (rounds = 3) => {
  const parts = makeParts()
  await measure(parts, true, rounds, "fed by the AI SDK (streamText over a mock provider)")
  await measure(parts, false, rounds, "fed by a bare in-memory Stream (monitor cost against near-zero work)")
}

if (import.meta.main) await main()
