/**
 * Incidents as the audit reports them (ARCHITECTURE.md: `step` is the step whose reply, or whose
 * tool results, raised it; `detail` is always an object).
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import type { IncidentKind } from "@loopguard/core/report"
import type { LoopguardEvent } from "../events/Events.js"

export interface AuditIncident {
  readonly step: number
  readonly detector: string
  readonly action: string
  readonly kind: IncidentKind
  readonly detail: Readonly<Record<string, unknown>>
}

const asDetail = (d: unknown): Readonly<Record<string, unknown>> =>
  d !== null && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : d === undefined ? {} : { value: d }

/** Every incident the run published (RunLoop's own and the ToolGate's doom-loop), in order. */
export const incidentsOf = (events: ReadonlyArray<LoopguardEvent>): Array<AuditIncident> =>
  events.flatMap((e) =>
    e.type !== "incident"
      ? []
      : [
          {
            step: e.step,
            detector: e.detector,
            action: e.action,
            kind: e.kind,
            detail: asDetail(e.detail)
          }
        ]
  )

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
