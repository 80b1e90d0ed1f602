/**
 * AI SDK parts (a single model call's, or `streamText`'s `fullStream`) → loopguard StreamParts.
 * Anything loopguard does not act on (start-step, text-start/end, sources, raw, ping, response
 * metadata) is dropped here so monitors see one shape.
 */
import { FINISH_REASONS, toolCallPart, type FinishReason, type StreamPart, type Usage } from "@loopguard/core/model"
import { normalizeProviderError } from "./http/response-limits.js"
import type { LanguageModelUsage } from "ai"
import type { ModelCallPart } from "./model-call.js"

/** An AI SDK finish reason as loopguard's (`unknown` for anything it does not know). */
export const toFinishReason = (reason: string | undefined): FinishReason =>
  reason !== undefined && (FINISH_REASONS as ReadonlyArray<string>).includes(reason) ? (reason as FinishReason) : "unknown"

/** AI SDK token usage as loopguard's `Usage`. */
export const toUsage = (u: LanguageModelUsage | undefined): Usage | undefined => {
  if (!u) return undefined
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {}
  if (u.inputTokens !== undefined) out.inputTokens = u.inputTokens
  if (u.outputTokens !== undefined) out.outputTokens = u.outputTokens
  if (u.totalTokens !== undefined) out.totalTokens = u.totalTokens
  const reasoning = u.outputTokenDetails?.reasoningTokens
  if (reasoning !== undefined) out.reasoningTokens = reasoning
  const cached = u.inputTokenDetails?.cacheReadTokens
  if (cached !== undefined) out.cachedInputTokens = cached
  return out
}

/** loopguard's finish from the SDK's reason and usage (a `finish` part's total, or a single call's). */
const finishPart = (reason: string, total: LanguageModelUsage | undefined): StreamPart => {
  const usage = toUsage(total)
  const finish = toFinishReason(reason)
  return usage ? { type: "finish", finish, usage } : { type: "finish", finish }
}

/** The provider's "stream ended without a finish reason" error: a missing finish, not a failure. */
export const isMissingFinish = (error: unknown): boolean =>
  error instanceof Error && /ended without a finish reason/i.test(error.message)

/**
 * Per-request mapper. When the stream ends without a finish reason, the SDK reports an error part
 * and then `finish: error`; loopguard records that as finish `unknown` (never taken as done) so
 * the classifier, not the retry coordinator, decides what happens.
 */
export const makePartMapper = () => {
  let missingFinish = false
  return (part: ModelCallPart): StreamPart | null => {
    if (part.type === "error" && isMissingFinish(part.error)) {
      missingFinish = true
      return { type: "finish", finish: "unknown" }
    }
    if (missingFinish && (part.type === "finish" || part.type === "finish-step" || part.type === "model-call-end")) return null
    return mapPart(part)
  }
}

/** One AI SDK part as a loopguard stream part, or null for parts loopguard does not use. */
export const mapPart = (part: ModelCallPart): StreamPart | null => {
  switch (part.type) {
    case "start":
    case "model-call-start":
      return { type: "start" }
    case "text-delta":
      return part.text === "" ? null : { type: "text-delta", text: part.text }
    case "reasoning-delta":
      return part.text === "" ? null : { type: "reasoning-delta", text: part.text }
    case "tool-input-start":
      return { type: "tool-input-start", id: part.id, name: part.toolName }
    case "tool-input-delta":
      return { type: "tool-input-delta", id: part.id, delta: part.delta }
    case "tool-call":
      return toolCallPart(part.toolCallId, part.toolName, (part as { input: unknown }).input)
    case "finish":
      return finishPart(part.finishReason, part.totalUsage)
    case "model-call-end":
      return finishPart(part.finishReason, part.usage)
    case "error":
      return { type: "error", error: { ...normalizeProviderError(part.error), phase: "request" } }
    case "abort":
      return { type: "error", error: { message: part.reason ?? "aborted", aborted: true } }
    default:
      return null
  }
}
