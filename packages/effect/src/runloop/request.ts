/**
 * Builds each step's request from the store: excluded replies left out, every persisted crop
 * re-applied (so the prefix stays stable for the provider's cache), ephemeral notes appended to
 * this request only, and the tool list dropped for tool-less requests.
 */
import { buildRequestView, DEFAULT_CROP } from "@loopguard/core/loops"
import { type Message } from "@loopguard/core/model"
import type { LlmRequest, RequestMessage, ToolSpec } from "../llm/LLM.js"

export interface BuildRequestInput {
  readonly messages: ReadonlyArray<Message>
  readonly system?: string
  readonly tools: ReadonlyArray<ToolSpec>
  readonly toolless: boolean
  /** Notes for this request only (repeated-action warning, soft-cap notice): never stored. */
  readonly ephemeral: ReadonlyArray<string>
  readonly applyCrops: boolean
}

export interface BuiltRequest {
  readonly request: LlmRequest
  /** Replies left out of this request by persisted crops. */
  readonly croppedIds: ReadonlyArray<string>
}

/** The next request from the stored history: excluded replies left out, crops re-applied, notes appended. */
export const buildRequest = (input: BuildRequestInput): BuiltRequest => {
  // Cache risk is judged per new crop (cross-step.ts), not over every crop re-applied here.
  const view = buildRequestView(input.messages, { ...DEFAULT_CROP, applyCrops: input.applyCrops })
  const messages: Array<RequestMessage> = []
  for (const m of view.messages) {
    if (m.role === "user") messages.push({ role: "user", text: m.text })
    else messages.push({ role: "assistant", parts: m.parts })
  }
  for (const note of input.ephemeral) messages.push({ role: "user", text: note })
  const request: LlmRequest = {
    ...(input.system !== undefined ? { system: input.system } : {}),
    messages,
    tools: input.toolless ? [] : input.tools
  }
  return { request, croppedIds: view.croppedIds }
}
