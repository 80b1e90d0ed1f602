/** Before a run's first step and before every step: the checks that may end the run without a request. */
import { unpricedBudgetMessage } from "../caps/pricing.js"
import type { Incident } from "../report/index.js"
import { fileIncident, judged, stopWith, type Judged, type StepAction } from "./actions.js"
import type { ExitError } from "../classify/index.js"
import type { RunState } from "./state.js"

export interface StepStartFacts {
  /** The run's step cap (a replay's recorded steps). */
  readonly maxSteps: number
  /** The caller cancelled before this step. */
  readonly cancelled: { readonly error: ExitError } | null
  /** Too many consecutive rollbacks before this step. */
  readonly rollbackCapReached: boolean
}

/** A replay ends when its recorded steps run out; a cancel ends any run; the rollback cap ends an enforcing one. */
export const judgeStepStart = (state: RunState, facts: StepStartFacts): Judged => {
  const actions: Array<StepAction> = []
  if (state.step - state.firstStep >= facts.maxSteps) actions.push({ _tag: "EndReplay" })
  if (facts.cancelled !== null) actions.push(stopWith("cancelled", facts.cancelled.error))
  if (facts.rollbackCapReached) actions.push({ _tag: "Enforce", actions: [stopWith("rollback_cap", { tag: "RollbackCapError", message: "too many consecutive rollbacks before this step" })] })
  return judged(state, actions)
}

/** A session reopened while its pause is still unanswered shows the pause again and ends (enforcing only). */
export const judgeStoredPause = (state: RunState, pause: { readonly step: number; readonly incident: Readonly<Record<string, unknown>> }): Judged =>
  judged(state, [
    {
      _tag: "Enforce",
      actions: [
        { _tag: "AnnouncePause", step: pause.step, incident: pause.incident },
        fileIncident({ step: pause.step, detector: "try-best", action: "pause", detail: { ...pause.incident, reopened: true } }),
        stopWith("try_best_paused")
      ]
    }
  ])

/** A run nested deeper than the sub-agent depth cap stops before anything else. */
export const judgeDepth = (state: RunState, depth: number, maxDepth: number): Judged => {
  if (depth <= maxDepth) return judged(state)
  const message = `a run at depth ${depth} is deeper than subagents.maxDepth = ${maxDepth}`
  const incident: Incident = { step: state.step, detector: "subagent", action: "stop", detail: { reason: "depth_limit", depth } }
  return judged(state, [fileIncident(incident), stopWith("depth_limit", { tag: "DepthLimitError", message })])
}

/** A cost cap without a price for the model can never trip: said once, when enforcing. */
export const judgeUnpricedBudget = (state: RunState, modelId: string, costBudgetUsd: number | null, priced: boolean): Judged => {
  if (costBudgetUsd === null || priced) return judged(state)
  const message = unpricedBudgetMessage(modelId, costBudgetUsd, "add the model under `prices` in the config")
  return judged(state, [{ _tag: "Enforce", actions: [fileIncident({ step: state.step, detector: "budget", action: "warn", detail: { reason: "budget_cost", message } })] }])
}
