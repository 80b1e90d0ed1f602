/**
 * @loopguard/ai-sdk: the loopguard LLM service from any AI SDK `LanguageModel` (`layerFromModel`,
 * `makeAiSdkLlm`), ready-made Layers for OpenAI-compatible endpoints and OpenAI, and
 * `loopguardMiddleware` for a plain AI SDK app (`wrapLanguageModel`). The agent helpers are on
 * `@loopguard/ai-sdk/agent`, the scripted test server on `@loopguard/ai-sdk/testing`.
 *
 * The stream and message mapping (`map-stream.ts`, `messages.ts`) and the HTTP response limits
 * (`http/response-limits.ts`) are internals of these Layers: import them by file inside the
 * workspace, not from this entry.
 */
export { layerFromModel, makeAiSdkLlm, type AiSdkModelOptions } from "./ai-sdk-llm.js"
export { layerOpenAI, layerOpenAICompatible, layerOpenAICompatibleFromEnv, type EndpointOptions } from "./providers.js"
export * from "./middleware/index.js"
