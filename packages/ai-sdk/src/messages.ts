/**
 * loopguard request → AI SDK ModelMessages and tool set. Tool results travel as a `tool`
 * message right after the assistant message that called them; a call with no result yet
 * (pending) is left out, because providers reject an unanswered call.
 */
import { isAnsweredClientCall, toolResultText } from "@loopguard/core/model"
import type { LlmRequest, ToolSpec } from "@loopguard/effect"
import { jsonSchema, tool, type ModelMessage, type ToolSet } from "ai"


/** A loopguard request's messages as AI SDK `ModelMessage`s. */
export const toModelMessages = (request: LlmRequest): Array<ModelMessage> => {
  // The system prompt travels as `instructions` (AI SDK 7 rejects system messages in `messages`).
  const out: Array<ModelMessage> = []
  for (const m of request.messages) {
    if (m.role === "user") {
      out.push({ role: "user", content: m.text })
      continue
    }
    const content: Array<
      | { type: "text"; text: string }
      | { type: "reasoning"; text: string }
      | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
    > = []
    for (const p of m.parts) {
      if (p.type === "text" && p.text !== "") content.push({ type: "text", text: p.text })
      else if (p.type === "reasoning" && p.text !== "") content.push({ type: "reasoning", text: p.text })
      else if (isAnsweredClientCall(p)) content.push({ type: "tool-call", toolCallId: p.callId, toolName: p.name, input: p.input ?? {} })
    }
    if (content.length === 0) continue
    out.push({ role: "assistant", content })
    const results = m.parts.filter(isAnsweredClientCall)
    if (results.length > 0) {
      out.push({
        role: "tool",
        content: results.map((p) => ({
          type: "tool-result" as const,
          toolCallId: p.callId,
          toolName: p.name,
          output: { type: "text" as const, value: toolResultText(p) }
        }))
      })
    }
  }
  return out
}

/** Tools without `execute`: loopguard runs them itself, so the SDK only reports the calls. */
export const toToolSet = (specs: ReadonlyArray<ToolSpec>): ToolSet => {
  const set: ToolSet = {}
  for (const s of specs) {
    set[s.name] = tool({ description: s.description, inputSchema: jsonSchema(s.inputSchema as never) })
  }
  return set
}
