/**
 * The step's class and the bounded recovery (classify → decide), and what the decision asks for:
 * a reminder, an exit, or a final answer that must still pass the finish gates.
 */
import { classifyStep, decideRecovery, hasPendingClientTool, type AgentRole, type RecoveryAction, type RecoveryLimits, type StepClassification } from "../classify/index.js"
import { toolPartsOf, type AssistantMessage, type ExitReason, type ReminderKind } from "../model/index.js"
import { fileIncident, judged, stopWith, type Judged, type StepAction } from "./actions.js"
import type { ExitError } from "../classify/index.js"
import type { RunState } from "./state.js"

export interface StepDecision {
  readonly classification: StepClassification
  readonly action: RecoveryAction
}

export interface RecoveryFacts {
  readonly reply: AssistantMessage
  /** The in-stream repetition monitor cut the reply. */
  readonly cutForRepetition: boolean
  readonly structuredOutput: boolean
  readonly role: AgentRole
  readonly limits: Partial<RecoveryLimits>
}

/** Classifies the reply and decides the recovery; publishes the class. */
export const judgeClassification = (state: RunState, facts: RecoveryFacts): Judged & { readonly decided: StepDecision } => {
  const { reply } = facts
  const classification = classifyStep({ reply, currentUserId: state.currentUserId })
  const decision = decideRecovery(state.recovery, {
    classification,
    ...(reply.finish !== undefined ? { finish: reply.finish } : {}),
    pendingClientTool: hasPendingClientTool(reply),
    madeClientToolCall: toolPartsOf(reply).some((p) => p.providerExecuted !== true),
    outcome: facts.cutForRepetition ? "text-repeat" : "normal",
    structuredOutput: facts.structuredOutput,
    role: facts.role,
    limits: facts.limits,
    ...(reply.error !== undefined ? { error: reply.error } : {})
  })
  const published: StepAction = { _tag: "Classified", step: state.step, class: classification.class, degraded: classification.degraded === true, reason: classification.reason }
  return { ...judged({ ...state, recovery: decision.state }, [published]), decided: { classification, action: decision.action } }
}

/** A synthetic user message of `kind` (counted, and stored when enforcing). */
export const remind = (kind: ReminderKind, text: string): StepAction => ({ _tag: "Remind", kind, text })

const recoveredEvent = (step: number, act: RecoveryAction): StepAction => ({
  _tag: "Recovered",
  step,
  action: act.type,
  ...(act.type === "remind" ? { kind: act.kind, text: act.text } : {}),
  ...(act.type === "exit" ? { kind: act.reason } : {})
})

/** What the decision does, short of a final answer (the host runs the finish gates on `final`). */
export const judgeDecision = (state: RunState, reply: AssistantMessage, decided: StepDecision): Judged => {
  const { action: act, classification } = decided
  const step = state.step
  if (act.type === "next-step") return judged(state)
  // A final answer ends the run only past the finish gates.
  if (act.type === "final") return judged(state, [recoveredEvent(step, act), { _tag: "PassFinishGates", reply }])
  if (act.type === "remind") {
    const detector = act.kind === "text-repeat-remind" || act.kind === "text-repeat-replan" ? "text-repeat" : classification.class
    return judged(state, [
      recoveredEvent(step, act),
      fileIncident({ step, detector, action: act.kind, detail: { reason: classification.reason } }),
      ...(act.exclude ? [{ _tag: "Exclude", messageId: reply.id, reason: act.exclude } as const] : []),
      remind(act.kind, act.text)
    ])
  }
  const filed: Array<StepAction> = []
  if (act.reason !== "final") {
    const detail = { reason: classification.reason, ...(act.error ? { error: act.error } : {}) }
    // A recorded cancel is filed as the live one is; the in-stream repetition's last word is its own detector's.
    const detector = act.reason === "text_repeat" ? "text-repeat" : classification.class
    const as = act.reason === "cancelled" ? { detector: "cancel", action: "stop" } : { detector, action: `exit:${act.reason}` }
    filed.push(fileIncident({ step, ...as, detail }))
  }
  return judged(state, [recoveredEvent(step, act), ...filed, stopWith(act.reason, act.error)])
}

/** The finish gates' verdict on a final answer (the completion check, then the goal gate). */
export type FinishGateVerdict =
  | { readonly type: "accept" }
  | { readonly type: "continue"; readonly kind: ReminderKind; readonly text: string }
  | { readonly type: "exit"; readonly reason: ExitReason; readonly error: ExitError }

/** The finish gates' verdict: accepted ends `final`, a refusal reminds, a gate at its cap stops with its reason. */
export const judgeGateVerdict = (state: RunState, verdict: FinishGateVerdict): Judged => {
  if (verdict.type === "accept") return judged(state, [stopWith("final")])
  if (verdict.type === "exit") return judged(state, [stopWith(verdict.reason, verdict.error)])
  return judged(state, [remind(verdict.kind, verdict.text)])
}
