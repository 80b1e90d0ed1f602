/** A finished sub-agent (the `task` tool): its usage joins the parent's meter, its summary the report, its pause the parent's turn. */
import { addChildUsage } from "../caps/index.js"
import type { SubagentSummary } from "../report/index.js"
import { fileIncident, judged, type Judged } from "./actions.js"
import type { ChildPause, RunState } from "./state.js"

export interface ChildRunFacts {
  readonly summary: SubagentSummary
  /** The budget slice the child was given. */
  readonly budget: object
  /** The child's pause, handed up; null when it did not pause. */
  readonly pause: ChildPause | null
}

/** Files the child run and adds its usage, summary and pause (if it paused) to the parent's state. */
export const judgeChildRun = (state: RunState, child: ChildRunFacts): Judged => {
  const { summary } = child
  const next: RunState = {
    ...state,
    meter: addChildUsage(state.meter, summary),
    subagents: [...state.subagents, summary],
    childPause: child.pause ?? state.childPause
  }
  return judged(next, [fileIncident({ step: summary.step, detector: "subagent", action: summary.reason, detail: { ...summary, budget: child.budget } })])
}
