/**
 * @loopguard/ai-sdk/testing: the scripted OpenAI-compatible server (SSE over local HTTP), its
 * stream builders and `layerScripted`, for demos, examples and tests. Not part of the main entry.
 */
export * from "./scripted-server/index.js"
export { layerScripted } from "./scripted-server/layer.js"
