/**
 * How an audit is printed: a human timeline per file plus a summary, or (`--json`) exactly one
 * JSON object per file per line (ARCHITECTURE.md contract, docs/audit.md).
 */
import type { AuditIncident, AuditResult } from "@loopguard/effect/audit"
import { jsonLine } from "../render/terminal-safe.js"

export const toJsonLine = (r: AuditResult): string => {
  if (r._tag === "failed") return jsonLine({ file: r.file, error: r.errors[0] ?? `${r.file}: failed`, errors: r.errors })
  // Every detector's finding is listed; `lead` marks the one finding per event (per step) to count.
  const leads = new Set(eventsOf(r.incidents).map((e) => e.lead))
  return jsonLine({
    file: r.file,
    steps: r.steps,
    incidents: r.incidents.map((i) => ({ step: i.step, detector: i.detector, action: i.action, kind: i.kind, detail: i.detail, lead: leads.has(i) })),
    exit: r.exit === null ? null : { reason: r.exit.reason, step: r.exit.step }
  })
}

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

/** `k=v` pairs, each value cut short, so one incident fits on one line. */
export const shortDetail = (detail: Readonly<Record<string, unknown>>, width = 100): string =>
  clip(
    Object.entries(detail)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${clip(typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)), 48)}`)
      .join(" "),
    width
  )

/** A detector's own one-line explanation (try-best writes one) beats the raw fields. */
const describe = (detail: Readonly<Record<string, unknown>>): string =>
  typeof detail["detail"] === "string" ? clip(detail["detail"], 100) : shortDetail(detail)

export const timelineLine = (i: AuditIncident): string =>
  `  step ${String(i.step).padStart(4)}  ${i.detector.padEnd(16)} ${i.action.padEnd(20)} ${describe(i.detail)}`.trimEnd()

/**
 * One event: the step whose reply (or tool results) several detectors saw at once. The third run of
 * the same failing command is one event even when seven detectors file it; the timeline shows it
 * once, led by the finding that does the most, with the others named after it.
 */
export interface AuditEvent {
  readonly step: number
  readonly lead: AuditIncident
  readonly also: ReadonlyArray<AuditIncident>
}

/** How much an action does: ending or pausing the run, then changing its course, then telling the model, then only noting. */
const weight = (action: string): number =>
  /^(exit:|stop|pause|hand-back|fail|permission-denied|cut|crop|rollback|refused|denied)/.test(action)
    ? 3
    : /^(remind|replan|degrade|reroute|model-switched|retry|continue)/.test(action)
      ? 2
      : /^(note|mild|moderate|severe|warn)/.test(action)
        ? 1
        : 0

/** Incidents (in step order) grouped into events, one per step. */
export const eventsOf = (incidents: ReadonlyArray<AuditIncident>): Array<AuditEvent> => {
  const byStep = new Map<number, Array<AuditIncident>>()
  for (const i of incidents) byStep.set(i.step, [...(byStep.get(i.step) ?? []), i])
  return [...byStep].map(([step, found]) => {
    const lead = found.reduce((best, i) => (weight(i.action) > weight(best.action) ? i : best))
    return { step, lead, also: found.filter((i) => i !== lead) }
  })
}

const eventLines = (e: AuditEvent): Array<string> => [
  timelineLine(e.lead),
  ...(e.also.length === 0 ? [] : [`${" ".repeat(13)}also seen by: ${e.also.map((i) => `${i.detector} ${i.action}`).join(", ")}`])
]

const countBy = (incidents: ReadonlyArray<AuditIncident>): string => {
  const counts = new Map<string, number>()
  for (const i of incidents) counts.set(i.detector, (counts.get(i.detector) ?? 0) + 1)
  return [...counts].map(([d, n]) => `${d} ${n}`).join(", ")
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/** The file's block: header, one entry per event, the would-be exit, the summary line. */
export const humanBlock = (r: AuditResult): Array<string> => {
  if (r._tag === "failed") return [`${r.file}: FAILED (${r.errors.length} problem${r.errors.length === 1 ? "" : "s"})`, ...r.errors.map((e) => `  ${e}`)]
  const exit = r.exit === null ? "none" : `${r.exit.reason} at step ${r.exit.step}`
  const events = eventsOf(r.incidents)
  const found = r.incidents.length === 0 ? "no incidents" : `${plural(events.length, "event")} (${plural(r.incidents.length, "detector finding")}: ${countBy(r.incidents)})`
  return [
    `${r.file} (${r.format === "trace" ? "" : `${r.format}, `}${r.steps} steps)`,
    ...events.flatMap(eventLines),
    ...r.notes.map((n) => `  note: ${n}`),
    `  first exit: ${exit}`,
    `${r.file}: ${r.steps} steps, ${found}, first exit ${exit}`
  ]
}

export const overallSummary = (results: ReadonlyArray<AuditResult>): string => {
  const failed = results.filter((r) => r._tag === "failed").length
  const audited = results.flatMap((r) => (r._tag === "audited" ? [r] : []))
  const incidents = audited.reduce((n, r) => n + r.incidents.length, 0)
  const events = audited.reduce((n, r) => n + eventsOf(r.incidents).length, 0)
  return `audited ${results.length} file${results.length === 1 ? "" : "s"}: ${results.length - failed} ok, ${failed} failed, ${plural(events, "event")} (${plural(incidents, "detector finding")})`
}
