/**
 * @loopguard/ai-sdk: the loopguard LLM service from any AI SDK `LanguageModel`, ready-made
 * Layers for OpenAI-compatible endpoints and OpenAI, and `loopguardMiddleware` for a plain AI SDK
 * app (`wrapLanguageModel`). The scripted test server is on the `@loopguard/ai-sdk/testing` subpath.
 */
export * from "./ai-sdk-llm.js"
export * from "./map-stream.js"
export * from "./messages.js"
export * from "./providers.js"
export * from "./http/response-limits.js"
export * from "./middleware/index.js"
