/**
 * @loopguard/ai-sdk: the loopguard LLM service from any AI SDK `LanguageModel`, and ready-made
 * Layers for OpenAI-compatible endpoints and OpenAI. The scripted test server is on the
 * `@loopguard/ai-sdk/testing` subpath.
 */
export * from "./ai-sdk-llm.js"
export * from "./map-stream.js"
export * from "./messages.js"
export * from "./providers.js"
