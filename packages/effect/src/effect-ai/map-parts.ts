/**
 * Effect AI `Response.StreamPart`s → loopguard StreamParts. What loopguard does not act on
 * (text/reasoning start and end, tool-params-end, sources, files, tool results, approval
 * requests) is dropped so monitors see one shape. Provider-executed tool calls are dropped too:
 * the provider ran them, loopguard has nothing to execute.
 */
import { toolCallPart, type FinishReason, type StreamPart, type Usage } from "@loopguard/core/model"
import type { Response } from "effect/ai"
import { normalizeAiError } from "./ai-error.js"

/**
 * Effect AI's reasons are loopguard's plus `pause` (the model asked to hand control back), which
 * is not a completed answer either: it becomes `other`, which the classifier never takes as done.
 */
export const finishReasonFromEffectAi = (reason: Response.FinishReason | undefined): FinishReason => {
  switch (reason) {
    case "stop":
    case "length":
    case "tool-calls":
    case "content-filter":
    case "error":
    case "other":
      return reason
    case "pause":
      return "other"
    default:
      return "unknown"
  }
}

type MutableUsage = { -readonly [K in keyof Usage]: Usage[K] }

/** Effect AI usage as loopguard's `Usage`. */
export const usageFromEffectAi = (u: Response.Usage | undefined): Usage | undefined => {
  if (u === undefined) return undefined
  const out: MutableUsage = {}
  const input = u.inputTokens.total
  const output = u.outputTokens.total
  if (input !== undefined) out.inputTokens = input
  if (output !== undefined) out.outputTokens = output
  // Effect AI reports no total; the sum is what the AI SDK reports for the same response.
  if (input !== undefined && output !== undefined) out.totalTokens = input + output
  if (u.outputTokens.reasoning !== undefined) out.reasoningTokens = u.outputTokens.reasoning
  if (u.inputTokens.cacheRead !== undefined) out.cachedInputTokens = u.inputTokens.cacheRead
  return Object.keys(out).length > 0 ? out : undefined
}

/** Arguments a provider left as text are parsed (and repaired) here, as the AI SDK backend does. */

/** The stream parts of a request made with `disableToolCallResolution` (any parameters mode). */
export type EffectAiStreamPart = Response.StreamPart<any, Response.ToolParametersMode>

/** One Effect AI stream part as a loopguard stream part, or null for parts loopguard does not use. */
export const streamPartFromEffectAi = (part: EffectAiStreamPart): StreamPart | null => {
  switch (part.type) {
    case "response-metadata":
      return { type: "start" }
    case "text-delta":
      return part.delta === "" ? null : { type: "text-delta", text: part.delta }
    case "reasoning-delta":
      return part.delta === "" ? null : { type: "reasoning-delta", text: part.delta }
    case "tool-params-start":
      return part.providerExecuted ? null : { type: "tool-input-start", id: part.id, name: part.name }
    case "tool-params-delta":
      return { type: "tool-input-delta", id: part.id, delta: part.delta }
    case "tool-call": {
      if (part.providerExecuted) return null
      return toolCallPart(part.id, part.name, part.params)
    }
    case "finish": {
      const usage = usageFromEffectAi(part.usage)
      const finish = finishReasonFromEffectAi(part.reason)
      return usage ? { type: "finish", finish, usage } : { type: "finish", finish }
    }
    case "error":
      return { type: "error", error: normalizeAiError(part.error) }
    default:
      return null
  }
}
