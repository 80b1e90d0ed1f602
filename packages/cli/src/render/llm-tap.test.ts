import { describe, expect, test } from "bun:test"
import type { StreamPart } from "@loopguard/core/model"
import { LLM, type LlmShape } from "@loopguard/effect"
import { FallbackLLM } from "@loopguard/effect/llm"
import { Effect, Layer, Stream } from "effect"
import { tapLlm } from "./llm-tap.js"

const text = (t: string): StreamPart => ({ type: "text-delta", text: t })

/** A model whose reply arrives in the given chunks (as the batched provider reader hands them on). */
const modelOf = (modelId: string, chunks: ReadonlyArray<ReadonlyArray<StreamPart>>): LlmShape => ({
  providerId: "test",
  modelId,
  stream: () => Stream.fromArrays(...chunks)
})

const request = { messages: [{ role: "user" as const, text: "go" }], tools: [] }

describe("tapLlm", () => {
  test("the renderer sees every part once, in order, across chunks; the loop gets the same parts", async () => {
    const chunks = [[text("a"), text("b")], [text("c")], [{ type: "finish", finish: "stop" } as StreamPart]]
    const seen: Array<StreamPart> = []
    const layer = tapLlm(Layer.succeed(LLM, LLM.of(modelOf("main", chunks))), (ps) => void seen.push(...ps))
    const got = await Effect.runPromise(Effect.gen(function* () {
      const llm = yield* LLM
      return yield* Stream.runCollect(llm.stream(request))
    }).pipe(Effect.provide(layer)))
    expect(got).toEqual(chunks.flat())
    expect(seen).toEqual(chunks.flat())
  })

  test("the breaker's fallback model is tapped too", async () => {
    const seen: Array<string> = []
    const layer = tapLlm(
      Layer.merge(Layer.succeed(LLM, LLM.of(modelOf("main", [[text("m")]]))), Layer.succeed(FallbackLLM, FallbackLLM.of(modelOf("fallback", [[text("f")]])))),
      (ps) => void seen.push(...ps.map((p) => (p.type === "text-delta" ? p.text : p.type)))
    )
    await Effect.runPromise(Effect.gen(function* () {
      const llm = yield* FallbackLLM
      yield* Stream.runDrain(llm.stream(request))
    }).pipe(
      // tapLlm's type names only LLM; the fallback it passes on (tapped) is what is tested here.
      Effect.provide(layer as Layer.Layer<LLM | FallbackLLM>)
    ))
    expect(seen).toEqual(["f"])
  })
})
