/**
 * The family every incident belongs to, so a reader (or a metric) can tell a loop from a stall, a
 * recovery from a fault without knowing every detector name:
 *   loop      the agent repeats itself (every loop detector, in-stream or cross-step)
 *   stall     no progress signals (no file change, flat spend, missing artefacts, edits never verified)
 *   recovery  a reply was repaired, rolled back, reminded or retried so the run could go on
 *   fault     something failed outside the model's control or a hard limit was hit
 */
export type IncidentKind = "loop" | "stall" | "recovery" | "fault"

export const INCIDENT_KINDS: ReadonlyArray<IncidentKind> = ["loop", "stall", "recovery", "fault"]

export const LOOP_DETECTOR_NAMES: ReadonlyArray<string> = [
  "text-repeat",
  "text-loop",
  "repeated-action",
  "action-cycle",
  "doom-loop",
  "streak-crop",
  "edit-repeat",
  "bash-retry",
  "repeated-observation",
  "repeated-failure",
  "varied-retry",
  "failure-streak",
  "replayed-sequence",
  "no-progress-spin"
]

// Hard limits and outside failures: caps, clocks, cancellation, the breaker, the finish gates.
const FAULT_DETECTORS = new Set([
  "breaker",
  "budget",
  "step-cap",
  "tool-cap",
  "timeout",
  "time-limit",
  "cancel",
  "subagent",
  "error",
  "completion-check",
  "goal-gate"
])
const STALL_DETECTORS = new Set(["action-streak"])

/** The kind of an incident, from its detector name (and its action, for classification exits). */
export const incidentKind = (detector: string, action = ""): IncidentKind => {
  if (LOOP_DETECTOR_NAMES.includes(detector)) return "loop"
  if (detector.startsWith("stall-") || STALL_DETECTORS.has(detector)) return "stall"
  if (FAULT_DETECTORS.has(detector)) return "fault"
  // A classification that ends the run on a provider or stream failure is a fault; the others
  // (think-only, invalid, text-tool-call, length, rollback, repair, …) are recoveries.
  if (action.startsWith("exit:") && /model_error|content_filter|timeout|circuit_open|cancelled/.test(action)) return "fault"
  return "recovery"
}
