/**
 * The scripted server and its stream builders alone: no AI SDK provider and no Effect, for
 * examples and checks that must run where neither is installed. `@loopguard/ai-sdk/testing` has
 * the rest (the provider-backed client helpers and `layerScripted`).
 */
export { startScriptedServer } from "./server.js"
export { textStream, repeatLoop, toolCallStream, chunksOf, DEFAULT_TEXT_CHUNK_SIZE } from "./builders.js"
export type { StreamSettings, TextStreamOptions, ToolCallStreamOptions } from "./builders.js"
export type { ScriptedChunk, ScriptedToolCall, StreamResponse, ErrorResponse, ResetResponse, ScriptedResponse, Script, RecordedRequest, ScriptedServer, ScriptedServerOptions } from "./types.js"
