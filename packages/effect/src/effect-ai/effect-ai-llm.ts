/**
 * The LLM service from any Effect AI `LanguageModel`. Tool calls are not resolved by Effect AI
 * (`disableToolCallResolution`: loopguard runs the tools itself) and their arguments are not
 * validated by it (`toolCallValidation: "deferred"`: loopguard's call repair sees the model's
 * calls as written, undeclared names included). Interrupting the Stream interrupts the
 * provider's stream, which closes its HTTP request.
 */
import type { StreamPart } from "@loopguard/core/model"
import { Effect, Layer, Stream } from "effect"
import { type AiError, LanguageModel } from "effect/ai"
import { LLM, type LlmRequest, type LlmShape } from "../llm/LLM.js"
import { llmRedaction } from "../llm/redact-parts.js"
import { normalizeAiError } from "./ai-error.js"
import { streamPartFromEffectAi, type EffectAiStreamPart } from "./map-parts.js"
import { toEffectAiPrompt, toEffectAiToolkit } from "./prompt.js"

/** Applies a per-request output cap, which Effect AI leaves to each provider's own config. */
export type EffectAiOutputCap = (maxOutputTokens: number) => <A, E>(stream: Stream.Stream<A, E>) => Stream.Stream<A, E>

export interface EffectAiLlmOptions {
  readonly providerId: string
  readonly modelId: string
  /**
   * Effect AI's `streamText` has no `maxOutputTokens`; a provider sets it through its own config
   * override (e.g. `OpenAiLanguageModel.withConfigOverride({ max_output_tokens })`). Without this
   * hook `LlmRequest.maxOutputTokens` is not sent.
   */
  readonly outputCap?: EffectAiOutputCap
  /**
   * Values (the provider's API key) removed from every error the provider reports; the
   * credential after Authorization / Bearer always is (servers echo the header back).
   */
  readonly secrets?: ReadonlyArray<string>
}

const streamParts = (model: LanguageModel.LanguageModel, request: LlmRequest): Stream.Stream<EffectAiStreamPart, AiError.AiError> =>
  request.tools.length > 0
    ? model.streamText({
        prompt: toEffectAiPrompt(request),
        toolkit: toEffectAiToolkit(request.tools),
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      })
    : model.streamText({
        prompt: toEffectAiPrompt(request),
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      })

/** The LLM service over an Effect AI `LanguageModel`. */
export const makeEffectAiLlm = (model: LanguageModel.LanguageModel, options: EffectAiLlmOptions): LlmShape => {
  // This is where a server's words enter loopguard: redacted here.
  const redaction = llmRedaction(options.secrets)
  return {
    providerId: options.providerId,
    modelId: options.modelId,
    stream: (request: LlmRequest) =>
      Stream.suspend(() => {
        const parts = streamParts(model, request)
        const capped =
          options.outputCap !== undefined && request.maxOutputTokens !== undefined
            ? parts.pipe(options.outputCap(request.maxOutputTokens))
            : parts
        return capped.pipe(
          Stream.mapError((e) => redaction.error(normalizeAiError(e))),
          Stream.map(streamPartFromEffectAi),
          Stream.filter((part): part is StreamPart => part !== null),
          redaction.parts
        )
      })
  }
}

/** `LLM` over the `LanguageModel` in context: provide the Effect AI provider's layer below it. */
export const layerFromEffectAi = (options: EffectAiLlmOptions): Layer.Layer<LLM, never, LanguageModel.LanguageModel> =>
  Layer.effect(
    LLM,
    Effect.gen(function* () {
      const model = yield* LanguageModel.LanguageModel
      return LLM.of(makeEffectAiLlm(model, options))
    })
  )
