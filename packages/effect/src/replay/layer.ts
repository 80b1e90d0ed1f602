/** The replay pair for one trace: LLM and Tools sharing one cursor. */
import type { AssistantMessage } from "@loopguard/core/model"
import { Layer } from "effect"
import { ReplayCursor } from "./ReplayCursor.js"
import { layerReplayLLM, type ReplayLlmOptions } from "./ReplayLLM.js"
import { layerReplayTools, recordedToolResults } from "./ReplayTools.js"

/** Replay LLM and replay Tools sharing one cursor, for recorded steps. */
export const layerReplay = (steps: ReadonlyArray<AssistantMessage>, options: Omit<ReplayLlmOptions, "cursor"> = {}) => {
  const cursor = new ReplayCursor()
  return Layer.mergeAll(layerReplayLLM(steps, { ...options, cursor }), layerReplayTools(recordedToolResults(steps), { cursor }))
}
