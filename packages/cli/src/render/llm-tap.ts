/**
 * Shows the reply while it streams: the model's parts are handed to the renderer as they arrive,
 * before any monitor decides on them. The loop itself sees the same stream, untouched. Every
 * model the given Layer provides is tapped (the main one, and the breaker's fallback when
 * `breaker.fallback` names one), and nothing else it provides is hidden.
 */
import type { StreamPart } from "@loopguard/core/model"
import { LLM, type LlmShape } from "@loopguard/effect"
import { FallbackLLM } from "@loopguard/effect/llm"
import { Context, Effect, Layer, Option, Stream } from "effect"

/** One call per chunk of parts: an Effect per part (`Stream.tap`) cost more than the renderer's work. */
const tapShape = (inner: LlmShape, onParts: (parts: ReadonlyArray<StreamPart>) => void): LlmShape => ({
  ...inner,
  stream: (request) =>
    inner.stream(request).pipe(
      Stream.mapArray((parts) => {
        onParts(parts)
        return parts
      })
    )
})

export const tapLlm = (llm: Layer.Layer<LLM>, onParts: (parts: ReadonlyArray<StreamPart>) => void): Layer.Layer<LLM> =>
  Layer.effectContext(
    Effect.map(Effect.context<LLM>(), (provided) => {
      const main = Context.add(provided, LLM, tapShape(Context.get(provided, LLM), onParts))
      const fallback = Context.getOption(provided as Context.Context<LLM | FallbackLLM>, FallbackLLM)
      return Option.isSome(fallback) ? Context.add(main, FallbackLLM, FallbackLLM.of(tapShape(fallback.value, onParts))) : main
    })
  ).pipe(Layer.provide(llm))
