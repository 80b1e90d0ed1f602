/**
 * How an audit is printed: a human timeline per file plus a summary, or (`--json`) exactly one
 * JSON object per file per line (ARCHITECTURE.md contract, docs/audit.md).
 */
import type { AuditIncident, AuditResult } from "@loopguard/effect/audit"

export const toJsonLine = (r: AuditResult): string =>
  JSON.stringify(
    r._tag === "failed"
      ? { file: r.file, error: r.errors[0] ?? `${r.file}: failed`, errors: r.errors }
      : {
          file: r.file,
          steps: r.steps,
          incidents: r.incidents.map((i) => ({ step: i.step, detector: i.detector, action: i.action, kind: i.kind, detail: i.detail })),
          exit: r.exit === null ? null : { reason: r.exit.reason, step: r.exit.step }
        }
  )

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

const countBy = (incidents: ReadonlyArray<AuditIncident>): string => {
  const counts = new Map<string, number>()
  for (const i of incidents) counts.set(i.detector, (counts.get(i.detector) ?? 0) + 1)
  return [...counts].map(([d, n]) => `${d} ${n}`).join(", ")
}

/** The file's block: header, one line per incident, the would-be exit, the summary line. */
export const humanBlock = (r: AuditResult): Array<string> => {
  if (r._tag === "failed") return [`${r.file}: FAILED (${r.errors.length} problem${r.errors.length === 1 ? "" : "s"})`, ...r.errors.map((e) => `  ${e}`)]
  const exit = r.exit === null ? "none" : `${r.exit.reason} at step ${r.exit.step}`
  const incidents = r.incidents.length === 0 ? "no incidents" : `${r.incidents.length} incident${r.incidents.length === 1 ? "" : "s"} (${countBy(r.incidents)})`
  return [
    `${r.file} (${r.format === "trace" ? "" : `${r.format}, `}${r.steps} steps)`,
    ...r.incidents.map(timelineLine),
    ...r.notes.map((n) => `  note: ${n}`),
    `  first exit: ${exit}`,
    `${r.file}: ${r.steps} steps, ${incidents}, first exit ${exit}`
  ]
}

export const overallSummary = (results: ReadonlyArray<AuditResult>): string => {
  const failed = results.filter((r) => r._tag === "failed").length
  const incidents = results.reduce((n, r) => n + (r._tag === "audited" ? r.incidents.length : 0), 0)
  return `audited ${results.length} file${results.length === 1 ? "" : "s"}: ${results.length - failed} ok, ${failed} failed, ${incidents} incidents`
}
