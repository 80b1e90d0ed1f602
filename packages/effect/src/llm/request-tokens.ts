/** A request's size in tokens, estimated: what compaction weighs, and what a step cut short is billed for its prompt. */
import { estimateTokens } from "@loopguard/core/context"
import type { LlmRequest } from "./LLM.js"

export const requestTokens = (request: LlmRequest): number =>
  estimateTokens((request.system ?? "") + JSON.stringify(request.messages) + JSON.stringify(request.tools))
