/**
 * loopguard request → Effect AI `Prompt` and `Toolkit`. Tool results travel as a `tool` message
 * right after the assistant message that called them; a call with no result yet (pending) and a
 * provider-executed call are left out, because providers reject an unanswered call and loopguard
 * never ran the provider's own tools.
 */
import { isAnsweredClientCall, toolResultText, type AssistantPart } from "@loopguard/core/model"
import { Prompt, Tool, Toolkit } from "effect/ai"
import type { LlmRequest, ToolSpec } from "../llm/LLM.js"


const assistantContent = (parts: ReadonlyArray<AssistantPart>): Array<Prompt.AssistantMessagePart> => {
  const content: Array<Prompt.AssistantMessagePart> = []
  for (const p of parts) {
    if (p.type === "text" && p.text !== "") content.push(Prompt.makePart("text", { text: p.text }))
    else if (p.type === "reasoning" && p.text !== "") content.push(Prompt.makePart("reasoning", { text: p.text }))
    else if (isAnsweredClientCall(p)) {
      content.push(Prompt.makePart("tool-call", { id: p.callId, name: p.name, params: p.input ?? {}, providerExecuted: false }))
    }
  }
  return content
}

/** A loopguard request as an Effect AI `Prompt`. */
export const toEffectAiPrompt = (request: LlmRequest): Prompt.Prompt => {
  const messages: Array<Prompt.Message> = []
  if (request.system !== undefined && request.system !== "") {
    messages.push(Prompt.makeMessage("system", { content: request.system }))
  }
  for (const m of request.messages) {
    if (m.role === "user") {
      messages.push(Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: m.text })] }))
      continue
    }
    const content = assistantContent(m.parts)
    if (content.length === 0) continue
    messages.push(Prompt.makeMessage("assistant", { content }))
    const results = m.parts.filter(isAnsweredClientCall)
    if (results.length > 0) {
      messages.push(
        Prompt.makeMessage("tool", {
          content: results.map((p) =>
            Prompt.makePart("tool-result", {
              id: p.callId,
              name: p.name,
              isFailure: p.state === "error",
              result: toolResultText(p),
              providerExecuted: false
            })
          )
        })
      )
    }
  }
  return Prompt.fromMessages(messages)
}

/**
 * One dynamic tool per spec, its parameters the spec's raw JSON Schema (Effect AI sends it as is
 * and does not validate the model's arguments against it; loopguard repairs and checks them).
 * The toolkit has no handlers: requests set `disableToolCallResolution`, so none is ever looked up.
 */
export const toEffectAiToolkit = (specs: ReadonlyArray<ToolSpec>) =>
  Toolkit.make(
    ...specs.map((s) =>
      Tool.dynamic(s.name, { description: s.description, parameters: s.inputSchema as Record<string, unknown> })
    )
  )
