/**
 * What a step used when the server never said: a reply cut by a guard or broken by an error ends
 * before the server's usage arrives, yet every token it streamed was generated and billed. Budgets
 * count those tokens, estimated from the streamed text, reasoning and tool arguments, and marked.
 */
import { tallyChars, tokensOfTally } from "../context/estimate.js"
import { reasoningOf, stableJson, textOf, toolPartsOf, type AssistantMessage } from "../model/message.js"
import type { Usage } from "../model/stream.js"

/** The reply's usage; when it has no output count, the streamed output estimated (`estimated: true`). */
export const streamedUsage = (reply: AssistantMessage): Usage => {
  const usage = reply.usage ?? {}
  if (usage.outputTokens !== undefined) return usage
  const streamed = textOf(reply) + reasoningOf(reply) + toolPartsOf(reply).map((p) => stableJson(p.input)).join("")
  const outputTokens = tokensOfTally(tallyChars(streamed))
  return { ...usage, outputTokens, totalTokens: (usage.inputTokens ?? 0) + outputTokens, estimated: true }
}
