/**
 * The LLM service from any AI SDK LanguageModel. The SDK's own retries are off (loopguard owns
 * retries), its error logging is silenced (errors arrive as parts), and interrupting the
 * Stream aborts the HTTP request so the server sees the client go away.
 */
import { type StreamPart } from "@loopguard/core/model"
import { normalizeError } from "@loopguard/core/retry"
import { LLM, LlmError, type LlmRequest, type LlmShape } from "@loopguard/effect"
import { Effect, Layer, Stream } from "effect"
import { streamText, type LanguageModel } from "ai"
import { toModelMessages, toToolSet } from "./messages.js"
import { makePartMapper } from "./map-stream.js"

export interface AiSdkModelOptions {
  readonly model: LanguageModel
  readonly providerId: string
  readonly modelId: string
}

export const makeAiSdkLlm = (options: AiSdkModelOptions): LlmShape => ({
  providerId: options.providerId,
  modelId: options.modelId,
  stream: (request: LlmRequest) =>
    Stream.suspend(() => {
      const controller = new AbortController()
      const tools = toToolSet(request.tools)
      const result = streamText({
        model: options.model,
        messages: toModelMessages(request),
        ...(request.system !== undefined && request.system !== "" ? { instructions: request.system } : {}),
        ...(request.tools.length > 0 ? { tools } : {}),
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        maxRetries: 0,
        abortSignal: controller.signal,
        onError: () => {}
      })
      return Stream.fromAsyncIterable(result.fullStream, (e) => new LlmError({ error: normalizeError(e) })).pipe(
        Stream.map(makePartMapper()),
        Stream.filter((part): part is StreamPart => part !== null),
        Stream.ensuring(Effect.sync(() => controller.abort()))
      )
    })
})

export const layerFromModel = (options: AiSdkModelOptions): Layer.Layer<LLM> => Layer.succeed(LLM, LLM.of(makeAiSdkLlm(options)))
