/**
 * The model the error-storm breaker reroutes to ("reroute", docs/run-loop.md: the second rung of the
 * ladder). Optional: without it the ladder is degrade → hand back. Give it as a second LLM Layer
 * (`FallbackLLM.fromLLM(layer)`); the CLI builds one from `breaker.fallback` on the same endpoint.
 */
import { Context, Effect, Layer } from "effect"
import { LLM, type LlmShape } from "./LLM.js"

/** The model the breaker's reroute rung switches to (optional). */
export class FallbackLLM extends Context.Service<FallbackLLM, LlmShape>()("loopguard/FallbackLLM") {
  /** The fallback from any LLM Layer (e.g. `layerOpenAICompatible` with another model id). */
  static readonly fromLLM = <E, R>(layer: Layer.Layer<LLM, E, R>): Layer.Layer<FallbackLLM, E, R> =>
    Layer.effect(
      FallbackLLM,
      Effect.gen(function* () {
        return FallbackLLM.of(yield* LLM)
      })
    ).pipe(Layer.provide(layer))
}
