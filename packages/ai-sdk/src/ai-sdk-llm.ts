/**
 * The LLM service from any AI SDK LanguageModel: one model call per request (model-call.ts; the
 * SDK retries nothing, loopguard owns retries), and interrupting the Stream aborts the HTTP
 * request so the server sees the client go away.
 */
import { type StreamPart } from "@loopguard/core/model"
import { LLM, type LlmRequest, type LlmShape } from "@loopguard/effect"
import { chunkTimeoutError, llmRedaction } from "@loopguard/effect/llm"
import { Effect, Layer, Stream } from "effect"
import type { LanguageModel } from "ai"
import { toModelMessages, toToolSet } from "./messages.js"
import { normalizeProviderError } from "./http/response-limits.js"
import { makePartMapper } from "./map-stream.js"
import { batchedStream } from "./batched-source.js"
import { openModelCall } from "./model-call.js"

export interface AiSdkModelOptions {
  readonly model: LanguageModel
  readonly providerId: string
  readonly modelId: string
  /** Values (the API key) removed from every error the provider reports; Authorization/Bearer credentials always are. */
  readonly secrets?: ReadonlyArray<string>
}

/** The LLM service over an AI SDK `LanguageModel`: one model call's parts mapped to loopguard's stream parts. */
export const makeAiSdkLlm = (options: AiSdkModelOptions): LlmShape => {
  // This is where a server's words enter loopguard: redacted here.
  const redaction = llmRedaction(options.secrets)
  return {
    providerId: options.providerId,
    modelId: options.modelId,
    // The reads are timed in batchedStream: a timer per batch, no fibers.
    timesChunks: true,
    stream: (request: LlmRequest) =>
      Stream.suspend(() => {
        const controller = new AbortController()
        const opened = openModelCall({
          model: options.model,
          messages: toModelMessages(request),
          ...(request.system !== undefined && request.system !== "" ? { instructions: request.system } : {}),
          ...(request.tools.length > 0 ? { tools: toToolSet(request.tools) } : {}),
          ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
          abortSignal: controller.signal
        })
        const ms = request.chunkTimeoutMs
        const timeout = ms === undefined ? undefined : { ms, onTimeout: () => chunkTimeoutError(ms) }
        return batchedStream(opened, (e) => redaction.error(normalizeProviderError(e)), timeout === undefined ? {} : { timeout }).pipe(
          Stream.map(makePartMapper()),
          Stream.filter((part): part is StreamPart => part !== null),
          redaction.parts,
          Stream.ensuring(Effect.sync(() => controller.abort()))
        )
      })
  }
}

/** The LLM Layer from any AI SDK `LanguageModel` you built yourself. */
export const layerFromModel = (options: AiSdkModelOptions): Layer.Layer<LLM> => Layer.succeed(LLM, LLM.of(makeAiSdkLlm(options)))
