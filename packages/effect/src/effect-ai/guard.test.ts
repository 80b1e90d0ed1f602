import { type StreamPart } from "@loopguard/core/model"
import { scanRepetition, scanText, type GuardTrip } from "@loopguard/core/repeat"
import { describe, expect, test } from "bun:test"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, Response } from "effect/ai"
import { ConfigService } from "../config/ConfigService.js"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import type { LoopguardConfig } from "../config/schema.js"
import { LLM } from "../llm/LLM.js"
import { layerFromEffectAi } from "./effect-ai-llm.js"
import { makeFakeModel, textTurn, type ScriptedTurn } from "./fake-model.js"
import { guardEffectAiStream, guardLanguageModel, guardLanguageModelWith } from "./guard.js"

const BLOCK = "open the file and read it again. "
const looping = (copies: number) => Array.from({ length: copies }, () => BLOCK)
/** Distinct sentences: no block ever repeats. */
const healthy = (n: number) => Array.from({ length: n }, (_, i) => `step ${i} checks item ${i * 7} in module m${i}. `)

const configWith = (patch: (c: LoopguardConfig) => LoopguardConfig = (c) => c) =>
  Layer.succeed(ConfigService, patch(structuredClone(DEFAULT_CONFIG)))

type Part = Response.StreamPart<{}, "deferred">

/** Streams one prompt through the guarded model; returns the parts the caller saw. */
const streamGuarded = (
  turn: ScriptedTurn,
  options: { readonly config?: (c: LoopguardConfig) => LoopguardConfig; readonly trips?: Array<GuardTrip> } = {}
) => {
  const fake = makeFakeModel([turn])
  const trips = options.trips
  const guard = trips ? guardLanguageModelWith({ onTrip: (t) => Effect.sync(() => trips.push(t)) }) : guardLanguageModel
  const layer = guard.pipe(Layer.provide(fake.layer), Layer.provide(configWith(options.config)))
  const program = Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    return yield* model
      .streamText({ prompt: "go", disableToolCallResolution: true, toolCallValidation: "deferred" })
      .pipe(Stream.runCollect)
  })
  return Effect.runPromise(Effect.provide(program, layer)) as Promise<Array<Part>>
}

const deltas = (parts: ReadonlyArray<{ readonly type: string }>) =>
  parts.filter((p): p is Response.TextDeltaPart => p.type === "text-delta").map((p) => p.delta)

describe("guardLanguageModel", () => {
  test("a looping text is cut at the delta that completes the 20th copy; what streamed is kept", async () => {
    const trips: Array<GuardTrip> = []
    const parts = await streamGuarded(textTurn(looping(40)), { trips })
    expect(DEFAULT_CONFIG.repeat.threshold).toBe(20)
    expect(deltas(parts)).toEqual(looping(20))
    expect(parts.at(-1)?.type).toBe("text-delta")
    expect(parts.some((p) => p.type === "finish")).toBe(false)
    // The trip is the one core's scanner finds in the same text.
    const scan = scanText(looping(20).join(""))
    expect(trips).toEqual([{ rule: "short", token: scan.token!, period: scan.period!, repeats: 20 }])
  })

  test("a 43-word paragraph repeated (beyond the short-period rule's window) is cut by the long-period rule", async () => {
    const paragraph =
      "We need to update the parser so that the nested table rows keep their alignment when the header holds merged cells, then rerun the formatter tests and compare the output with the expected fixture files before we touch the renderer once again today. "
    expect(paragraph.trim().split(/\s+/)).toHaveLength(43)
    const trips: Array<GuardTrip> = []
    const parts = await streamGuarded(textTurn(Array.from({ length: 400 }, () => paragraph)), { trips })
    expect(trips).toHaveLength(1)
    expect(trips[0]!.rule).toBe("long")
    expect(deltas(parts).length).toBeLessThanOrEqual(5)
    expect(parts.some((p) => p.type === "finish")).toBe(false)
    // The same place core's scanner reports for the whole text.
    const scan = scanRepetition(paragraph.repeat(400))
    expect(scan.repeat).toBe(false)
    expect(trips[0]!.token).toBe(scan.long!.token)
  })

  test("19 copies then an answer are not cut", async () => {
    const parts = await streamGuarded(textTurn([...looping(19), "Done: the file is fixed."]))
    expect(deltas(parts)).toHaveLength(20)
    expect(parts.at(-1)?.type).toBe("finish")
  })

  test("a healthy text streams through to its finish", async () => {
    const trips: Array<GuardTrip> = []
    const parts = await streamGuarded(textTurn(healthy(60)), { trips })
    expect(deltas(parts)).toEqual(healthy(60))
    expect(parts.at(-1)).toMatchObject({ type: "finish", reason: "stop" })
    expect(trips).toEqual([])
  })

  test("the thresholds come from the config's repeat section", async () => {
    const parts = await streamGuarded(textTurn(looping(40)), { config: (c) => ({ ...c, repeat: { ...c.repeat, threshold: 5 } }) })
    expect(deltas(parts)).toEqual(looping(5))
  })

  test("repeat.enabled = false hands the model through uncut", async () => {
    const parts = await streamGuarded(textTurn(looping(40)), { config: (c) => ({ ...c, repeat: { ...c.repeat, enabled: false } }) })
    expect(deltas(parts)).toHaveLength(40)
    expect(parts.at(-1)?.type).toBe("finish")
  })

  test("reasoning and text feed one guard: a loop that moves into the text is still one loop", async () => {
    const reasoning = looping(12).map((delta): Response.StreamPartEncoded => ({ type: "reasoning-delta", id: "r", delta }))
    const text = textTurn(looping(20)).parts
    const parts = await streamGuarded({ parts: [...reasoning, ...text] })
    expect(deltas(parts)).toEqual(looping(8))
  })

  test("the guarded model under layerFromEffectAi gives loopguard a cut stream too", async () => {
    const fake = makeFakeModel([textTurn(looping(40))])
    const model = guardLanguageModel.pipe(Layer.provide(fake.layer), Layer.provide(configWith()))
    const layer = layerFromEffectAi({ providerId: "fake", modelId: "m" }).pipe(Layer.provide(model))
    const parts = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          return yield* (yield* LLM).stream({ messages: [{ role: "user", text: "go" }], tools: [] }).pipe(Stream.runCollect)
        }),
        layer
      )
    )
    const texts = parts.filter((p): p is Extract<StreamPart, { type: "text-delta" }> => p.type === "text-delta")
    expect(texts).toHaveLength(20)
  })

  test("an endless loop ends at the trip and the provider stream is closed", async () => {
    let closed = false
    const endless = Stream.forever(Stream.succeed(Response.makePart("text-delta", { id: "t", delta: BLOCK }))).pipe(
      Stream.ensuring(Effect.sync(() => (closed = true)))
    )
    const parts = await Effect.runPromise(endless.pipe(guardEffectAiStream(DEFAULT_CONFIG.repeat), Stream.runCollect))
    expect(parts).toHaveLength(20)
    expect(closed).toBe(true)
  })
})
