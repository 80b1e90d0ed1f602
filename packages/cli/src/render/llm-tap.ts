/**
 * Shows the reply while it streams: the model's parts are handed to the renderer as they arrive,
 * before any monitor decides on them. The loop itself sees the same stream, untouched.
 */
import type { StreamPart } from "@loopguard/core/model"
import { LLM } from "@loopguard/effect"
import { Effect, Layer, Stream } from "effect"

export const tapLlm = (llm: Layer.Layer<LLM>, onPart: (part: StreamPart) => void): Layer.Layer<LLM> =>
  Layer.effect(
    LLM,
    Effect.map(LLM, (inner) =>
      LLM.of({ ...inner, stream: (request) => inner.stream(request).pipe(Stream.tap((part) => Effect.sync(() => onPart(part)))) })
    )
  ).pipe(Layer.provide(llm))
