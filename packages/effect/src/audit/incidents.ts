/**
 * Incidents as the audit reports them (ARCHITECTURE.md: `step` is the step whose reply, or whose
 * tool results, raised it; `detail` is always an object).
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { incidentKind, type Incident, type IncidentKind } from "@loopguard/core/report"

export interface AuditIncident {
  readonly step: number
  readonly detector: string
  readonly action: string
  readonly kind: IncidentKind
  readonly detail: Readonly<Record<string, unknown>>
}

const asDetail = (d: unknown): Readonly<Record<string, unknown>> =>
  d !== null && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : d === undefined ? {} : { value: d }

/** One of the run's incidents as the audit reports it: its kind filled in, its detail an object. */
export const auditIncidentOf = (i: Incident): AuditIncident => ({
  step: i.step,
  detector: i.detector,
  action: i.action,
  kind: i.kind ?? incidentKind(i.detector, i.action),
  detail: asDetail(i.detail)
})

/**
 * Crop markers name replies by the store's message ids; an audit reader thinks in trace steps,
 * so `fromStep` / `toStep` are added beside them.
 */
export const withReplySteps = (incident: AuditIncident, messages: ReadonlyArray<Message>): AuditIncident =>
  withReplyStepsBy(incident, (id) => messages.find((m): m is AssistantMessage => m.role === "assistant" && m.id === id)?.step)

/** `withReplySteps` with the reply-id → step lookup given (a store that no longer holds old replies). */
export const withReplyStepsBy = (incident: AuditIncident, stepOf: (replyId: string) => number | undefined): AuditIncident => {
  const { from, to } = incident.detail
  if (typeof from !== "string" || typeof to !== "string") return incident
  const fromStep = stepOf(from)
  const toStep = stepOf(to)
  if (fromStep === undefined || toStep === undefined) return incident
  return { ...incident, detail: { ...incident.detail, fromStep, toStep } }
}

/** Stable by step: within a step, the order the detectors ran in. */
export const byStep = (incidents: ReadonlyArray<AuditIncident>): Array<AuditIncident> =>
  incidents.map((incident, i) => ({ incident, i })).sort((a, b) => a.incident.step - b.incident.step || a.i - b.i).map((x) => x.incident)
