/**
 * The finish gates' part of the judge: what stands between a final answer and the end of the run.
 * The completion check (a command, objective and cheap, first) and the goal gate (an evaluator
 * call) each have their own cap, so a disagreement can never loop forever. The host runs the
 * command and asks the evaluator; these functions weigh what came back.
 */
import { completionCheckFeedback, goalGateFeedback, type GoalVerdict } from "../gate/index.js"
import { fileIncident, judged, type Judged } from "./actions.js"
import type { FinishGateVerdict } from "./recovery.js"
import type { RunState } from "./state.js"

export interface FinishGateSettings {
  /** The completion check's command; null = no check. */
  readonly command: string | null
  /** Failed checks before the run ends `completion_check_failed`. */
  readonly maxFailures: number
  readonly goalGate: boolean
  /** Evaluator calls before the run ends `goal_gate_cap`. */
  readonly maxChecks: number
}

/** What the completion command did. */
export interface CheckOutcome {
  readonly ok: boolean
  readonly exitCode: number | null
  readonly output: string
}

/** The completion check's result: filed; a failure is fed back, or at the cap ends the run. `verdict` null: passed, on to the goal gate. */
export const judgeCompletionCheck = (state: RunState, command: string, maxFailures: number, r: CheckOutcome): Judged & { readonly verdict: FinishGateVerdict | null } => {
  const filed = fileIncident({ step: state.step, detector: "completion-check", action: r.ok ? "passed" : "failed", detail: { command, exitCode: r.exitCode } })
  if (r.ok) return { ...judged(state, [filed]), verdict: null }
  const failures = state.completionFailures + 1
  const next = { ...state, completionFailures: failures }
  const verdict: FinishGateVerdict =
    failures >= maxFailures
      ? { type: "exit", reason: "completion_check_failed", error: { tag: "CompletionCheckError", message: `\`${command}\` still fails after ${failures} attempts` } }
      : { type: "continue", kind: "completion-check", text: completionCheckFeedback(command, r.exitCode, r.output) }
  return { ...judged(next, [filed]), verdict }
}

/** Before asking the evaluator: at its cap the run ends `goal_gate_cap`; otherwise the call is counted. */
export const judgeGoalGateTurn = (state: RunState, maxChecks: number): Judged & { readonly verdict: FinishGateVerdict | null } => {
  if (state.goalGateChecks >= maxChecks) {
    const error = { tag: "GoalGateCapError", message: `the goal gate judged the goal unmet ${state.goalGateChecks} times` }
    return { ...judged(state), verdict: { type: "exit", reason: "goal_gate_cap", error } }
  }
  return { ...judged({ ...state, goalGateChecks: state.goalGateChecks + 1 }), verdict: null }
}

/** The evaluator's answer: filed; unmet is fed back, met (or unclear) accepts the answer. */
export const judgeGoalGateAnswer = (state: RunState, answer: GoalVerdict): Judged & { readonly verdict: FinishGateVerdict } => {
  const action = answer.met ? (answer.understood ? "met" : "unclear-accepted") : "not-met"
  const filed = fileIncident({ step: state.step, detector: "goal-gate", action, detail: { reason: answer.reason.slice(0, 500), check: state.goalGateChecks } })
  const verdict: FinishGateVerdict = answer.met ? { type: "accept" } : { type: "continue", kind: "goal-gate", text: goalGateFeedback(answer.reason) }
  return { ...judged(state, [filed]), verdict }
}
