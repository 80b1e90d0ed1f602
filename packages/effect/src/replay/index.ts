export { ReplayCursor } from "./ReplayCursor.js"
export { DEFAULT_REPLAY_PARTS, replayFinish, replyToParts, type ReplayPartsOptions } from "./replay-parts.js"
export { DEFAULT_REPLAY_MODEL, layerReplayLLM, makeReplayLLM, type ReplayLlmOptions } from "./ReplayLLM.js"
export {
  EMPTY_TOOL_RESULT,
  layerReplayTools,
  makeReplayTools,
  permissiveSpecs,
  recordedToolResults,
  type ReplayToolResult,
  type ReplayToolsOptions
} from "./ReplayTools.js"
export { layerReplay } from "./layer.js"
