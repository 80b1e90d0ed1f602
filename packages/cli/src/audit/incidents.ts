/**
 * Incidents as the audit reports them (ARCHITECTURE.md: `step` is the step whose reply, or whose
 * tool results, raised it; `detail` is always an object).
 */
import { repeatedAction, detectStreak, type AssistantMessage, type Message } from "@loopguard/core"
import type { LoopguardConfig, LoopguardEvent } from "@loopguard/effect"

export interface AuditIncident {
  readonly step: number
  readonly detector: string
  readonly action: string
  readonly detail: Readonly<Record<string, unknown>>
}

const asDetail = (d: unknown): Readonly<Record<string, unknown>> =>
  d !== null && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : d === undefined ? {} : { value: d }

/**
 * Detectors the RunLoop checks while building the request of step i, from the replies of
 * steps < i; it files them under i. The reply that raised them is step i − 1, so the audit
 * files them there (still causal: nothing after that reply was seen).
 */
export const PRE_REQUEST_DETECTORS: ReadonlySet<string> = new Set(["repeated-action", "streak-crop"])

/** Every incident the run published (RunLoop's own and the ToolGate's doom-loop), in order. */
export const incidentsOf = (events: ReadonlyArray<LoopguardEvent>): Array<AuditIncident> =>
  events.flatMap((e) =>
    e.type !== "incident"
      ? []
      : [
          {
            step: PRE_REQUEST_DETECTORS.has(e.detector) ? e.step - 1 : e.step,
            detector: e.detector,
            action: e.action,
            detail: asDetail(e.detail)
          }
        ]
  )

/**
 * After the last recorded step there is no next request, so the RunLoop never checks the
 * pre-request detectors on the final history; the audit does it once with the same core
 * functions and the same thresholds.
 */
export const tailIncidents = (messages: ReadonlyArray<Message>, config: LoopguardConfig, lastStep: number): Array<AuditIncident> => {
  if (lastStep < 0) return []
  const out: Array<AuditIncident> = []
  const action = repeatedAction(messages, { repeats: config.repeated_action.repeats, note: "" })
  if (action) out.push({ step: lastStep, detector: "repeated-action", action: "note", detail: { signature: action.signature, count: action.count } })
  const streak = detectStreak(messages, {
    enabled: true,
    triggerCount: config.loop_streak_recovery.trigger_count,
    maxSpan: config.loop_streak_recovery.max_span
  })
  if (streak) out.push({ step: lastStep, detector: "streak-crop", action: "detect", detail: { ...streak.marker, replies: streak.replyIds.length } })
  return out
}

/**
 * Crop markers name replies by the store's message ids; an audit reader thinks in trace steps,
 * so `fromStep` / `toStep` are added beside them.
 */
export const withReplySteps = (incident: AuditIncident, messages: ReadonlyArray<Message>): AuditIncident => {
  const { from, to } = incident.detail
  if (typeof from !== "string" || typeof to !== "string") return incident
  const stepOf = (id: string) => messages.find((m): m is AssistantMessage => m.role === "assistant" && m.id === id)?.step
  const fromStep = stepOf(from)
  const toStep = stepOf(to)
  if (fromStep === undefined || toStep === undefined) return incident
  return { ...incident, detail: { ...incident.detail, fromStep, toStep } }
}

/** Stable by step: within a step, the order the detectors ran in. */
export const byStep = (incidents: ReadonlyArray<AuditIncident>): Array<AuditIncident> =>
  incidents.map((incident, i) => ({ incident, i })).sort((a, b) => a.incident.step - b.incident.step || a.i - b.i).map((x) => x.incident)
