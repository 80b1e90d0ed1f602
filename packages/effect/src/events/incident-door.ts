/**
 * The one door of an incident: given its kind (from its detector and action when it has none), kept
 * where the run's report is built from, and published as an `incident` event with the same fields.
 * Every part of a run that files an incident (the interpreter, the tool runner, the text-call reader,
 * the failure-summary retry) goes through here, so the report and the events cannot disagree.
 */
import { incidentKind, type Incident, type IncidentKind } from "@loopguard/core/report"
import { Effect } from "effect"
import type { Events } from "./Events.js"

export type FiledIncident = Incident & { readonly kind: IncidentKind }

export const fileIncident = (events: Events["Service"], keep: (incident: FiledIncident) => void, incident: Incident): Effect.Effect<void> =>
  Effect.suspend(() => {
    const filed: FiledIncident = { ...incident, kind: incident.kind ?? incidentKind(incident.detector, incident.action) }
    keep(filed)
    return events.publish({ type: "incident", step: filed.step, detector: filed.detector, action: filed.action, kind: filed.kind, detail: filed.detail })
  })
