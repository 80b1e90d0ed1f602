/**
 * What a step's outcome says before any classification: a pause, a denied doom loop or the summary
 * request ends the run; a rollback takes the reply back; a structured-output call is the result.
 */
import type { AssistantMessage } from "../model/index.js"
import type { RollbackDecision } from "../rollback/index.js"
import { fileIncident, judged, stopWith, type Judged, type StepAction } from "./actions.js"
import type { StepCap } from "./caps.js"
import type { RunState } from "./state.js"

/** How the processor's step ended (the processor's `StepOutcome`, as the judge reads it). */
export type StepOutcomeFacts =
  | { readonly type: "continue" }
  | { readonly type: "paused"; readonly incident: Readonly<Record<string, unknown>> }
  | { readonly type: "stop"; readonly reason: string }
  | { readonly type: "text-repeat"; readonly trip: object }
  | { readonly type: "error" }

const pausedBy = (detector: string, incident: Readonly<Record<string, unknown>>) => String(incident["kind"] ?? detector).replace(/_/g, "-")

/** The processor's outcome: a pause or a denied doom loop ends the run, a cut repetition is filed, a summary step ends with its cap. */
export const judgeOutcome = (state: RunState, outcome: StepOutcomeFacts, cap: StepCap): Judged => {
  const step = state.step
  const actions: Array<StepAction> = []
  if (outcome.type === "paused") {
    actions.push({ _tag: "AnnouncePause", step, incident: outcome.incident })
    actions.push(fileIncident({ step, detector: pausedBy("try-best", outcome.incident), action: "pause", detail: outcome.incident }))
    // A pause ends the turn; nothing after it (goal gate, recoveries) may override it.
    actions.push(stopWith("try_best_paused"))
  }
  if (outcome.type === "stop") actions.push(stopWith("doom_loop", { tag: "DoomLoopError", message: outcome.reason }))
  if (outcome.type === "text-repeat") actions.push(fileIncident({ step, detector: "text-repeat", action: "cut", detail: { ...outcome.trip } }))
  if (cap.summaryReason !== null) actions.push(stopWith(cap.summaryReason))
  return judged(state, actions)
}

/** A sub-agent that paused hands its pause up: the parent's turn pauses with the child's incident. */
export const judgeChildPause = (state: RunState): Judged => {
  const paused = state.childPause
  if (paused === null) return judged(state)
  return judged({ ...state, childPause: null }, [
    { _tag: "AnnouncePause", step: state.step, incident: paused.detail },
    fileIncident({ step: state.step, detector: paused.detector, action: "pause", detail: paused.detail }),
    stopWith("try_best_paused")
  ])
}

/** The rollback guard's verdict on a reply: filed, then the reply taken back or the run ended. */
export const judgeRollback = (
  state: RunState,
  rolled: Pick<RollbackDecision, "action" | "trigger"> | null,
  reply: AssistantMessage,
  maxConsecutive: number
): Judged => {
  if (rolled === null) return judged(state)
  const { kind, ...evidence } = rolled.trigger
  const filed = fileIncident({ step: state.step, detector: "rollback", action: rolled.action, detail: { kind, ...evidence } })
  if (rolled.action === "rollback") return judged(state, [filed, { _tag: "TakeBack", messageId: reply.id, reason: "rollback", count: "rollback" }])
  if (rolled.action === "end-loop") {
    const message = `${maxConsecutive} consecutive rollbacks (${kind})`
    return judged(state, [filed, stopWith("rollback_cap", { tag: "RollbackCapError", message })])
  }
  return judged(state, [filed])
}

/** A completed call of the structured-output tool `toolName` is the run's result. */
export const judgeStructured = (state: RunState, reply: AssistantMessage, toolName: string | null): Judged => {
  if (toolName === null) return judged(state)
  const call = reply.parts.find((p) => p.type === "tool" && p.name === toolName && p.state === "completed")
  if (!call || call.type !== "tool") return judged(state)
  return judged({ ...state, structured: { value: call.input } }, [{ _tag: "Recovered", step: state.step, action: "final", kind: "structured-output" }, stopWith("final")])
}
