/**
 * The incident that paused a run, read back from the RunLoop's result. The RunLoop records it as
 * an incident with action `pause` whose `detail` is the detector's incident object
 * ({ kind, step, detail, evidence }); this reads it defensively, since stall signals pause too
 * and carry no evidence.
 */
import type { RunResult } from "@loopguard/effect"

export interface PausedIncident {
  /** `bash_retry`, `edit_repeat`, `action_streak`, or a stall signal's kind. */
  readonly kind: string
  /** The incident's detector name as recorded (`bash-retry` …). */
  readonly detector: string
  /** The step it paused at, counted from 0 as the report's incidents are. */
  readonly step: number
  /** One line saying what was detected. */
  readonly detail: string
  readonly evidence: Readonly<Record<string, unknown>>
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** The pause of a run that ended `try_best_paused`; null for any other ending. */
export const pausedIncidentOf = (result: RunResult): PausedIncident | null => {
  if (result.report.reason !== "try_best_paused") return null
  const recorded = [...result.incidents].reverse().find((i) => i.action === "pause")
  if (!recorded) {
    // Paused without a recorded incident: still a pause, described by the report alone.
    return { kind: "try_best", detector: "try-best", step: Math.max(0, result.report.stepsUsed - 1), detail: result.report.blockedAt ?? "try-best paused the turn", evidence: {} }
  }
  const d = isRecord(recorded.detail) ? recorded.detail : {}
  const kind = typeof d["kind"] === "string" ? d["kind"] : recorded.detector.replace(/-/g, "_")
  const detail =
    typeof d["detail"] === "string" && d["detail"] !== "" ? d["detail"] : `${recorded.detector}: ${JSON.stringify(recorded.detail) ?? "paused"}`
  return {
    kind,
    detector: recorded.detector,
    step: typeof d["step"] === "number" ? d["step"] : recorded.step,
    detail,
    evidence: isRecord(d["evidence"]) ? d["evidence"] : {}
  }
}

/** The command the incident is about (a bash_retry's command, a streak's verification run). */
export const incidentCommand = (incident: PausedIncident): string | null => {
  const c = incident.evidence["command"]
  return typeof c === "string" && c.trim() !== "" ? c.trim() : null
}
