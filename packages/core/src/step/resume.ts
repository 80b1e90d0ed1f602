/**
 * A run that resumes a session without a new user turn first re-examines the reply the session
 * ends on, as the top of an agent loop does: a cut-off or empty reply gets its reminder, a final
 * answer ends the run without a request, anything else goes on with the next request.
 */
import { classifyStep, decideRecovery, hasPendingClientTool, initRecovery, type AgentRole, type RecoveryLimits } from "../classify/index.js"
import { toolPartsOf, type AssistantMessage, type ExclusionReason, type ExitReason, type Message, type ReminderKind } from "../model/index.js"
import { fileIncident, judged, stopWith, type Judged, type StepAction } from "./actions.js"
import { remind } from "./recovery.js"
import type { ExitError } from "../classify/index.js"
import type { RunState } from "./state.js"

export type ResumeVerdict =
  /** Go on with the next request; `exclude`: without the reply the session ends on (it failed half-way). */
  | { readonly type: "request"; readonly exclude?: ExclusionReason }
  | { readonly type: "remind"; readonly kind: ReminderKind; readonly text: string; readonly exclude?: ExclusionReason }
  | { readonly type: "final"; readonly reply: AssistantMessage }
  | { readonly type: "exit"; readonly reason: ExitReason; readonly error?: ExitError }

/** The last reply before any new turn, when the session ends on one (reminders after it count as a turn). */
const lastReplyOf = (history: ReadonlyArray<Message>): AssistantMessage | null => {
  const last = [...history].reverse().find((m) => !(m.role === "assistant" && m.excluded !== undefined))
  return last !== undefined && last.role === "assistant" ? last : null
}

/** What the top of the loop decides about the reply a resumed session ends on. */
export const reexamineLastReply = (input: {
  readonly history: ReadonlyArray<Message>
  readonly currentUserId: string
  readonly limits: Partial<RecoveryLimits>
  readonly role: AgentRole
}): { readonly reply: AssistantMessage | null; readonly verdict: ResumeVerdict } => {
  const reply = lastReplyOf(input.history)
  if (reply === null) return { reply, verdict: { type: "request" } }
  // A reply the interruption or the provider's failure (its retries spent) cut short is not the
  // model's answer: resuming asks again, without its text (a request may not end on half a reply:
  // Mistral refuses one). One that made calls stays: what ran is told to the model.
  if (reply.error !== undefined) return { reply, verdict: toolPartsOf(reply).length === 0 ? { type: "request", exclude: "rollback" } : { type: "request" } }
  const classification = classifyStep({ reply, currentUserId: input.currentUserId })
  const { action } = decideRecovery(initRecovery(), {
    classification,
    ...(reply.finish !== undefined ? { finish: reply.finish } : {}),
    pendingClientTool: hasPendingClientTool(reply),
    outcome: "normal",
    structuredOutput: false,
    role: input.role,
    limits: input.limits,
    ...(reply.error !== undefined ? { error: reply.error } : {})
  })
  switch (action.type) {
    case "remind":
      return { reply, verdict: { type: "remind", kind: action.kind, text: action.text, ...(action.exclude !== undefined ? { exclude: action.exclude } : {}) } }
    case "final":
      return { reply, verdict: { type: "final", reply } }
    case "exit":
      return { reply, verdict: { type: "exit", reason: action.reason, ...(action.error !== undefined ? { error: action.error } : {}) } }
    default:
      return { reply, verdict: { type: "request" } }
  }
}

/** What the re-examination does: filed, then a reminder (the reply left out when asked) or the end. */
export const judgeResume = (state: RunState, reply: AssistantMessage | null, verdict: ResumeVerdict): Judged => {
  if (reply !== null && verdict.type === "request" && verdict.exclude !== undefined) {
    const filed = fileIncident({ step: reply.step, detector: "resume", action: "reexamined:request", detail: { excluded: verdict.exclude } })
    return judged(state, [filed, { _tag: "Exclude", messageId: reply.id, reason: verdict.exclude }])
  }
  if (reply === null || verdict.type === "request") return judged(state)
  const filed = fileIncident({ step: reply.step, detector: "resume", action: `reexamined:${verdict.type}`, detail: verdict.type === "remind" ? { kind: verdict.kind } : {} })
  if (verdict.type === "remind") {
    const exclude: ReadonlyArray<StepAction> = verdict.exclude !== undefined ? [{ _tag: "Exclude", messageId: reply.id, reason: verdict.exclude }] : []
    return judged(state, [filed, ...exclude, remind(verdict.kind, verdict.text)])
  }
  if (verdict.type === "final") return judged({ ...state, lastReply: verdict.reply }, [filed, stopWith("final")])
  return judged(state, [filed, stopWith(verdict.reason, verdict.error)])
}
