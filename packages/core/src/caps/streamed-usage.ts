/**
 * What a step used when the server never said: a reply cut by a guard or broken by an error ends
 * before the server's usage arrives, and many local servers send none at all, yet the whole request
 * was read and every token streamed was generated, and both were billed. Budgets count them: the prompt estimated from the request, the
 * output from the streamed text, reasoning and tool arguments; the usage is marked estimated.
 */
import { tallyChars, tokensOfTally } from "../context/estimate.js"
import { reasoningOf, stableJson, textOf, toolPartsOf, type AssistantMessage } from "../model/message.js"
import type { Usage } from "../model/stream.js"

/**
 * The reply's usage; when it has no output count, the streamed output estimated, and the prompt
 * from `promptTokens` (the request's estimate, asked for only then) when the server gave no input
 * count either (`estimated: true`).
 */
export const streamedUsage = (reply: AssistantMessage, promptTokens?: () => number): Usage => {
  const usage = reply.usage ?? {}
  if (usage.outputTokens !== undefined) return usage
  const streamed = textOf(reply) + reasoningOf(reply) + toolPartsOf(reply).map((p) => stableJson(p.input)).join("")
  const outputTokens = tokensOfTally(tallyChars(streamed))
  const inputTokens = usage.inputTokens ?? promptTokens?.()
  return { ...usage, ...(inputTokens !== undefined ? { inputTokens } : {}), outputTokens, totalTokens: (inputTokens ?? 0) + outputTokens, estimated: true }
}
