export { startScriptedServer } from "./server.js";
export { textStream, repeatLoop, toolCallStream, chunksOf, DEFAULT_TEXT_CHUNK_SIZE } from "./builders.js";
export type { StreamSettings, TextStreamOptions, ToolCallStreamOptions } from "./builders.js";
export { streamFrames, splitIntoPieces, sseFrame, DONE_FRAME } from "./sse-events.js";
export type { CompletionIdentity, SseFrames } from "./sse-events.js";
export { responsesFrames, responsesJson, messagesFrames, messagesJson } from "./protocol-frames.js";
export type { ScriptedProtocol } from "./protocol-frames.js";
export { geminiFrames, geminiJson, geminiPath } from "./gemini-frames.js";
export { completionBody, openAIErrorBody, modelsBody } from "./json-bodies.js";
export { estimateUsage, wantsUsage, withUsage, CHARS_PER_TOKEN } from "./usage-estimate.js";
export { MID_STREAM_RESET_SETTLE_MS } from "./serve-response.js";
export { scriptedChatModel, declaredTools, streamScripted, collectFullStream } from "./client.js";
export type { ScriptedProvider, StreamScriptedOptions, ScriptedStreamResult, CollectedStream } from "./client.js";
export { DEFAULT_SCRIPTED_SERVER_OPTIONS } from "./types.js";
export type {
  ScriptedChunk,
  ScriptedToolCall,
  WireFinishReason,
  WireUsage,
  StreamResponse,
  ErrorResponse,
  ResetResponse,
  ScriptedResponse,
  Script,
  RequestOutcome,
  RecordedRequest,
  ScriptedServer,
  ScriptedServerOptions,
} from "./types.js";
