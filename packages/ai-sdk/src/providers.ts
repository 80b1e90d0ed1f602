/**
 * Ready-made LLM Layers: any OpenAI-compatible Chat Completions endpoint and OpenAI itself. The
 * scripted model for demos and tests is `layerScripted` in `@loopguard/ai-sdk/testing`.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { DEFAULT_CONFIG, LLM } from "@loopguard/effect"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { makeAiSdkLlm } from "./ai-sdk-llm.js"
import { limitedFetch, type ResponseLimits } from "./http/response-limits.js"

export interface EndpointOptions {
  readonly baseURL: string
  readonly modelId: string
  /** Used to pick `provider.<id>` config overrides; defaults to the endpoint's host. */
  readonly providerId?: string
  readonly apiKey?: Redacted.Redacted<string>
  /** Response size limits; default the config defaults (`stream.maxResponseBytes`, `stream.maxEventBytes`). */
  readonly limits?: ResponseLimits
}

const limitsOf = (options: Pick<EndpointOptions, "limits">): ResponseLimits =>
  options.limits ?? { maxResponseBytes: DEFAULT_CONFIG.stream.maxResponseBytes, maxEventBytes: DEFAULT_CONFIG.stream.maxEventBytes }

/** The key is redacted from every error the endpoint reports (servers echo it back). */
const secretsOf = (options: Pick<EndpointOptions, "apiKey">): ReadonlyArray<string> => (options.apiKey ? [Redacted.value(options.apiKey)] : [])

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return "openai-compatible"
  }
}

/** The LLM Layer for any OpenAI-compatible Chat Completions endpoint. */
export const layerOpenAICompatible = (options: EndpointOptions): Layer.Layer<LLM> => {
  const providerId = options.providerId ?? hostOf(options.baseURL)
  const provider = createOpenAICompatible({
    name: providerId,
    baseURL: options.baseURL,
    // No key, no Authorization header (the provider leaves it out): never a made-up `Bearer none`.
    ...(options.apiKey ? { apiKey: Redacted.value(options.apiKey) } : {}),
    includeUsage: true,
    fetch: limitedFetch(limitsOf(options))
  })
  return Layer.succeed(
    LLM,
    LLM.of(makeAiSdkLlm({ model: provider.chatModel(options.modelId), providerId, modelId: options.modelId, secrets: secretsOf(options) }))
  )
}

/** OpenAI Chat Completions (for the Responses API, build the model yourself and use `layerFromModel`). */
export const layerOpenAI = (options: Omit<EndpointOptions, "baseURL"> & { readonly baseURL?: string }): Layer.Layer<LLM> => {
  const provider = createOpenAI({
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.apiKey ? { apiKey: Redacted.value(options.apiKey) } : {}),
    fetch: limitedFetch(limitsOf(options))
  })
  return Layer.succeed(
    LLM,
    LLM.of(
      makeAiSdkLlm({
        model: provider.chat(options.modelId),
        providerId: options.providerId ?? "openai",
        modelId: options.modelId,
        secrets: secretsOf(options)
      })
    )
  )
}

/**
 * The endpoint from the environment: LOOPGUARD_BASE_URL, LOOPGUARD_MODEL, and the key from
 * LOOPGUARD_API_KEY (read as a redacted value, never logged).
 */
export const layerOpenAICompatibleFromEnv: Layer.Layer<LLM, Config.ConfigError> = Layer.unwrap(
  Effect.gen(function* () {
    const baseURL = yield* Config.String("LOOPGUARD_BASE_URL")
    const modelId = yield* Config.String("LOOPGUARD_MODEL")
    const apiKey = yield* Config.option(Config.Redacted("LOOPGUARD_API_KEY"))
    return layerOpenAICompatible({ baseURL, modelId, ...(Option.isSome(apiKey) ? { apiKey: apiKey.value } : {}) })
  })
)
