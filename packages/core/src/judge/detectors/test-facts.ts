/** Step facts for the detector tests. Not part of the public API. */
import type { AssistantMessage, Message } from "../../model/index.js"
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
