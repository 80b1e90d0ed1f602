/**
 * Builds each step's request from the store: excluded replies left out, every persisted crop
 * re-applied (so the prefix stays stable for the provider's cache), the latest compaction summary
 * in place of the history it replaces, ephemeral notes appended to this request only, and the
 * tool list dropped for tool-less requests.
 */
import { applyCompaction } from "@loopguard/core/context"
import { buildRequestView, DEFAULT_CROP } from "@loopguard/core/loops"
import { type Message } from "@loopguard/core/model"
import { toRequestMessages } from "../compaction/Compactor.js"
import type { LlmRequest, RequestMessage, ToolSpec } from "../llm/LLM.js"

export interface BuildRequestInput {
  readonly messages: ReadonlyArray<Message>
  readonly system?: string
  readonly tools: ReadonlyArray<ToolSpec>
  readonly toolless: boolean
  /** Notes for this request only (repeated-action warning, soft-cap notice): never stored. */
  readonly ephemeral: ReadonlyArray<string>
  readonly applyCrops: boolean
  /** Re-apply the stored reasoning-loop crops (`loop_streak_recovery.enabled`); compaction is not affected. */
  readonly streakCrops?: boolean
}

export interface BuiltRequest {
  readonly request: LlmRequest
  /** Replies left out of this request by persisted crops. */
  readonly croppedIds: ReadonlyArray<string>
}

/** The stored session as the model sees it: exclusions, crops and the latest compaction applied. */
export const requestView = (
  all: ReadonlyArray<Message>,
  enforce: boolean,
  streakCrops = true
): { readonly messages: ReadonlyArray<Message>; readonly croppedIds: ReadonlyArray<string> } => {
  // Cache risk is judged per new crop (cross-step.ts), not over every crop re-applied here.
  // Streak crops stay stored when the feature is switched off, but the model sees the full view (seed 000).
  const view = buildRequestView(all, { ...DEFAULT_CROP, applyCrops: enforce && streakCrops })
  // The latest compaction summary takes the place of the range it replaces (never in shadow mode).
  return { messages: enforce ? applyCompaction(view.messages, all) : view.messages, croppedIds: view.croppedIds }
}

export const buildRequest = (input: BuildRequestInput): BuiltRequest => {
  const view = requestView(input.messages, input.applyCrops, input.streakCrops ?? true)
  const shown = view.messages
  const messages: Array<RequestMessage> = toRequestMessages(shown)
  for (const note of input.ephemeral) messages.push({ role: "user", text: note })
  const request: LlmRequest = {
    ...(input.system !== undefined ? { system: input.system } : {}),
    messages,
    tools: input.toolless ? [] : input.tools
  }
  return { request, croppedIds: view.croppedIds }
}
