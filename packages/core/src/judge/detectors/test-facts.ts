/** Step facts for the detector tests. Not part of the public API. */
import type { AssistantMessage, Message, ToolPart } from "../../model/index.js"
import type { StepContext, StepFacts } from "./step-detector.js"

export const factsOf = (
  messages: ReadonlyArray<Message>,
  step: number,
  extra: { readonly ctx?: Partial<StepContext>; readonly cropped?: boolean; readonly reply?: AssistantMessage } = {}
): StepFacts => ({
  messages,
  reply: extra.reply ?? (messages[messages.length - 1] as AssistantMessage),
  step,
  ctx: { final: false, costUsd: null, ...extra.ctx },
  kept: undefined,
  cropped: extra.cropped ?? false
})

/** Reply `i` with one bash call: `state` and what came back. */
export const bashReply = (i: number, command: string, result: Pick<ToolPart, "state" | "output" | "error" | "exitCode">): AssistantMessage => ({
  role: "assistant",
  id: `a${i}`,
  parentId: "u1",
  step: i,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${i}`, name: "bash", input: { command }, ...result }]
})
