/**
 * Resume without surprises: a tool call written ahead (`running`/`pending`) whose result was
 * never recorded — the run was cancelled or the process died while it ran — is turned into an
 * answered call that says so. Left as it was, every backend drops an unanswered call from the
 * request, so the model would never learn the call started and might run it again unawares.
 */
import type { AssistantMessage, Message, ToolPart } from "./message.js"

export interface InterruptedCall {
  readonly messageId: string
  readonly step: number
  readonly callId: string
  readonly name: string
  readonly input: unknown
}

/** What the model reads as the call's result: what is known, and that the effect is unknown. */
export const interruptedCallText = (p: ToolPart, step: number): string =>
  `interrupted: this ${p.name} call (step ${step}) was started but its result was never recorded — the run was ` +
  `cancelled or stopped while it ran. It may or may not have taken effect; check the current state before running it again.` +
  (p.output !== undefined && p.output !== "" ? ` Output captured before the interruption:\n${p.output}` : "")

const isUnanswered = (p: AssistantMessage["parts"][number]): p is ToolPart =>
  p.type === "tool" && (p.state === "running" || p.state === "pending") && p.providerExecuted !== true

/**
 * The replies to rewrite (each with its unanswered calls marked `error` with the text above),
 * and the calls found. Excluded replies are left alone: they are never sent again anyway.
 */
export const markInterruptedCalls = (
  messages: ReadonlyArray<Message>
): { readonly replies: ReadonlyArray<AssistantMessage>; readonly calls: ReadonlyArray<InterruptedCall> } => {
  const replies: Array<AssistantMessage> = []
  const calls: Array<InterruptedCall> = []
  for (const m of messages) {
    if (m.role !== "assistant" || m.excluded !== undefined || !m.parts.some(isUnanswered)) continue
    const parts = m.parts.map((p) => {
      if (!isUnanswered(p)) return p
      calls.push({ messageId: m.id, step: m.step, callId: p.callId, name: p.name, input: p.input })
      return { ...p, state: "error" as const, error: interruptedCallText(p, m.step) }
    })
    replies.push({ ...m, parts, ...(m.finish === undefined ? { finish: "unknown" as const } : {}) })
  }
  return { replies, calls }
}
