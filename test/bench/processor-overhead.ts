/**
 * 1M tokens through the SessionProcessor with the repetition monitor vs. the same stream with no
 * monitor (repeat.enabled = false). Same process, same input, alternating runs; prints the ratio
 * of the medians (target ≤ 1.10×). In-process LLM, so the figure is the monitor's own cost, not HTTP's.
 */
import type { StreamPart } from "@loopguard/core/model"
import {
  ConfigService,
  DEFAULT_CONFIG,
  Events,
  LLM,
  loopguardLayer,
  Permission,
  SessionProcessor,
  SessionStore,
  Tools
} from "@loopguard/effect"
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

/**
 * Provider chunks made on demand from the delta texts, as a live stream would deliver them
 * (holding all 250k chunk objects at once would inflate the heap and every GC with it).
 */
const providerStream = (parts: ReadonlyArray<StreamPart>): ReadableStream<unknown> => {
  const texts = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []))
  let i = -1
  return new ReadableStream<unknown>({
    pull(controller) {
      if (i === -1) controller.enqueue({ type: "text-start", id: "t" })
      else if (i < texts.length) controller.enqueue({ type: "text-delta", id: "t", delta: texts[i] })
      else if (i === texts.length) controller.enqueue({ type: "text-end", id: "t" })
      else {
        controller.enqueue({
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: TOKENS, text: TOKENS, reasoning: 0 } }
        })
        controller.close()
      }
      i++
    }
  })
}

/** The same deltas as a provider stream, so they pass through the AI SDK's streamText like live output. */
const aiSdkLlm = (parts: ReadonlyArray<StreamPart>) =>
  layerFromModel({
    providerId: "bench",
    modelId: "bench",
    model: new MockLanguageModelV4({ doStream: async () => ({ stream: providerStream(parts) }) } as never)
  })

const runOnce = (parts: ReadonlyArray<StreamPart>, monitor: boolean, viaAiSdk = false): Promise<number> => {
  const config = { ...DEFAULT_CONFIG, repeat: { ...DEFAULT_CONFIG.repeat, enabled: monitor } }
  const configLayer = Layer.succeed(ConfigService, config)
  const llm = viaAiSdk ? aiSdkLlm(parts) : Layer.succeed(LLM, LLM.of({ providerId: "bench", modelId: "bench", stream: () => Stream.fromIterable(parts) }))
  const deps = Layer.mergeAll(llm, Tools.layerNone, configLayer, Layer.succeed(Events, Events.make(() => {})), Permission.layerDeny, SessionStore.layerMemory)
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
  const ratios: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    // Paired and alternating in order, so drift on a noisy machine hits both sides of a pair alike.
    const a = i % 2 === 0 ? await runOnce(parts, true, viaAiSdk) : NaN
    const b = await runOnce(parts, false, viaAiSdk)
    const c = i % 2 === 0 ? a : await runOnce(parts, true, viaAiSdk)
    withMon.push(c)
    without.push(b)
    ratios.push(c / b)
  }
  const ratio = median(ratios)
  console.log(`SessionProcessor ${label}, ${TOKENS.toLocaleString()} tokens in ${(TOKENS / WORDS_PER_DELTA).toLocaleString()} deltas, ${rounds} paired rounds`)
  console.log(`  with monitor:    median ${median(withMon).toFixed(0)} ms`)
  console.log(`  without monitor: median ${median(without).toFixed(0)} ms`)
  console.log(`  ratio (median of paired ratios) ${ratio.toFixed(3)}x — target <= 1.10x: ${ratio <= 1.1 ? "met" : "not met"}`)
  return ratio
}

export const main = async (rounds = 5) => {
  const parts = makeParts()
  await measure(parts, true, rounds, "fed by the AI SDK (streamText over a mock provider)")
  await measure(parts, false, rounds, "fed by a bare in-memory Stream (monitor cost against near-zero work)")
}

if (import.meta.main) await main()
