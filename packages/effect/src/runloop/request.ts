/**
 * Builds each step's request from the store: excluded replies left out, every persisted crop
 * re-applied (so the prefix stays stable for the provider's cache), the latest compaction summary
 * in place of the history it replaces, ephemeral notes appended to this request only, and the
 * tool list dropped for tool-less requests.
 */
import { applyCompaction, isCompaction } from "@loopguard/core/context"
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
  /** Re-apply the stored reasoning-loop crops (`loopStreakRecovery.enabled`); compaction is not affected. */
  readonly streakCrops?: boolean
}

export interface BuiltRequest {
  readonly request: LlmRequest
  /** Replies left out of this request by persisted crops. */
  readonly croppedIds: ReadonlyArray<string>
}

export interface RequestView {
  readonly messages: ReadonlyArray<Message>
  readonly croppedIds: ReadonlyArray<string>
  /**
   * A message appended to the session would simply be appended to this view (history-view.ts):
   * no "Continue." closes it, no crop marker waits for an end that is not stored yet, and the
   * latest compaction's range resolved. False means: build the view again after the next change.
   */
  readonly appendable: boolean
}

/** The latest compaction's range is in the store (or there is none): later messages go after its summary. */
const compactionSettled = (all: ReadonlyArray<Message>): boolean => {
  for (let i = all.length - 1; i >= 0; i--) {
    const m = all[i]!
    if (!isCompaction(m)) continue
    const from = all.findIndex((x) => x.id === m.compacts.from)
    const to = all.findIndex((x) => x.id === m.compacts.to)
    return from >= 0 && to >= 0 && from <= to
  }
  return true
}

/** The stored session as the model sees it: exclusions, crops and the latest compaction applied. */
export const requestView = (all: ReadonlyArray<Message>, enforce: boolean, streakCrops = true): RequestView => {
  // Cache risk is judged per new crop (cross-step.ts), not over every crop re-applied here.
  // Streak crops stay stored when the feature is switched off, but the model sees the full view (as in MiMo Code).
  const view = buildRequestView(all, { ...DEFAULT_CROP, applyCrops: enforce && streakCrops })
  const appendable = !view.continued && view.unresolved.length === 0 && (!enforce || compactionSettled(all))
  // The latest compaction summary takes the place of the range it replaces (never in shadow mode).
  return { messages: enforce ? applyCompaction(view.messages, all) : view.messages, croppedIds: view.croppedIds, appendable }
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
