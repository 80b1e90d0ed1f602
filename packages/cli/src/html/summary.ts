/**
 * The page's summary, from the incidents and the first exit: counts by detector and kind, where
 * the first loop began, what loopguard would have done and when, and the spans of steps that
 * repeated (drawn highlighted on the timeline).
 */
import type { AuditIncident } from "@loopguard/effect/audit"

export interface Span {
  readonly from: number
  readonly to: number
  readonly detector: string
}

export interface RunSummary {
  readonly byDetector: ReadonlyArray<{ readonly detector: string; readonly kind: string; readonly count: number }>
  readonly byKind: ReadonlyArray<{ readonly kind: string; readonly count: number }>
  /** Step where the first loop began (the start of its repeated span), or null. */
  readonly firstLoop: { readonly step: number; readonly detector: string; readonly firedAt: number } | null
  /** The first incident that would have changed the run (not a note or a detection only). */
  readonly firstAction: AuditIncident | null
  readonly spans: ReadonlyArray<Span>
}

/** Actions that only record: the run would have gone on unchanged. */
const RECORD_ONLY = new Set(["note", "detect", "warn", "log"])

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined)

/** The calls of a step, each as `name NUL input`: how a repeat is recognised. */
export type StepSignatures = (step: number) => ReadonlySet<string>

const NO_CALLS: StepSignatures = () => new Set()

const MAX_WALK_BACK = 500

/**
 * Where the `count` repeats of an incident's call began: walking back from its step over the
 * steps that made one of the same calls (other steps, edits in between, are passed over); the
 * `count` steps up to it when the calls are not known.
 */
const repeatStart = (step: number, count: number, sigs: StepSignatures): number => {
  const wanted = sigs(step)
  if (wanted.size === 0) return Math.max(0, step - count + 1)
  let found = 0
  // A repeat further back than this is not what the incident counted.
  for (let k = step; k >= 0 && step - k <= MAX_WALK_BACK; k--) {
    if (![...sigs(k)].some((x) => wanted.has(x))) continue
    if (++found === count) return k
  }
  return Math.max(0, step - count + 1)
}

/** The steps an incident says repeated: its fromStep…toStep, else its `count` repeats up to it. */
export const spanOf = (i: AuditIncident, sigs: StepSignatures = NO_CALLS): Span | null => {
  const from = num(i.detail["fromStep"])
  const to = num(i.detail["toStep"])
  if (from !== undefined && to !== undefined) return { from, to, detector: i.detector }
  const count = num(i.detail["count"]) ?? num(i.detail["replies"])
  if (i.kind === "loop" && count !== undefined && count > 1) return { from: repeatStart(i.step, count, sigs), to: i.step, detector: i.detector }
  return i.kind === "loop" ? { from: i.step, to: i.step, detector: i.detector } : null
}

const counts = <K extends string>(items: ReadonlyArray<K>): Array<[K, number]> => {
  const m = new Map<K, number>()
  for (const k of items) m.set(k, (m.get(k) ?? 0) + 1)
  return [...m].sort((a, b) => b[1] - a[1])
}

export const summarize = (incidents: ReadonlyArray<AuditIncident>, sigs: StepSignatures = NO_CALLS): RunSummary => {
  const spans = incidents.flatMap((i) => spanOf(i, sigs) ?? [])
  const firstLoopIncident = incidents.find((i) => i.kind === "loop")
  // Of the loop incidents filed with the first, the one whose repeats reach back furthest.
  const firstSpan =
    firstLoopIncident === undefined
      ? null
      : (incidents
          .filter((i) => i.kind === "loop" && i.step === firstLoopIncident.step)
          .flatMap((i) => spanOf(i, sigs) ?? [])
          .sort((a, b) => a.from - b.from)[0] ?? null)
  const byDetector = counts(incidents.map((i) => `${i.detector}\u0000${i.kind}`)).map(([k, count]) => {
    const [detector, kind] = k.split("\u0000") as [string, string]
    return { detector, kind, count }
  })
  return {
    byDetector,
    byKind: counts(incidents.map((i) => i.kind)).map(([kind, count]) => ({ kind, count })),
    firstLoop: firstLoopIncident === undefined ? null : { step: firstSpan?.from ?? firstLoopIncident.step, detector: firstSpan?.detector ?? firstLoopIncident.detector, firedAt: firstLoopIncident.step },
    firstAction: incidents.find((i) => !RECORD_ONLY.has(i.action)) ?? null,
    spans
  }
}
