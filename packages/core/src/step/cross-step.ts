/**
 * The cross-step detectors' verdicts (`CrossStepDetectors.afterStep`) as actions. Their incidents
 * and crop are filed at once; their pause, exit and reminders only after the recovery was applied.
 */
import type { AfterStep } from "../judge/index.js"
import type { TryBestIncident } from "../try-best/index.js"
import { fileIncident, judged, stopWith, type Judged, type StepAction } from "./actions.js"
import { remind } from "./recovery.js"
import type { RunState } from "./state.js"

/** What the detectors found at once: incidents, Try-Best's notes (given with the next request) and the crop. */
export const judgeCrossStepFindings = (state: RunState, after: AfterStep, notes: ReadonlyArray<TryBestIncident>): Judged => {
  const noted = notes.map((note) => fileIncident({ step: note.step, detector: note.kind.replace(/_/g, "-"), action: "note", detail: { ...note } }))
  const crop: ReadonlyArray<StepAction> = after.crop ? [{ _tag: "Crop", on: after.crop.on, marker: after.crop.marker }] : []
  return judged({ ...state, compactedSinceLastStep: false }, [...after.incidents.map(fileIncident), ...noted, ...crop])
}

export interface BreakerFacts {
  readonly cooldownSteps: number
  /** The models a reroute switches between; null when there is no fallback model. */
  readonly reroute: { readonly from: string; readonly to: string } | null
}

/** Below hand-back the breaker cools tool execution down; its reroute rung switches the model once. */
const breakerActions = (state: RunState, rung: "degrade" | "reroute", facts: BreakerFacts): ReadonlyArray<StepAction> => {
  const cool: StepAction = { _tag: "CoolDownTools", steps: facts.cooldownSteps }
  if (rung !== "reroute" || facts.reroute === null || state.rerouted) return [cool]
  return [cool, { _tag: "SwitchModel", incident: { step: state.step, detector: "breaker", action: "model-switched", detail: { ...facts.reroute } } }]
}

/** What the detectors ask for after the recovery: a pause, an exit, the breaker's rung, reminders. */
export const judgeCrossStepVerdict = (state: RunState, after: AfterStep, breaker: BreakerFacts): Judged => {
  const actions: Array<StepAction> = []
  if (after.pause) actions.push({ _tag: "AnnouncePause", step: state.step, incident: after.pause }, stopWith("try_best_paused"))
  if (after.exit) actions.push(stopWith(after.exit.reason, after.exit.error))
  if (after.breakerTrip !== undefined) actions.push(...breakerActions(state, after.breakerTrip, breaker))
  for (const r of after.reminders) actions.push(remind(r.kind, r.text))
  return judged(state, actions)
}
