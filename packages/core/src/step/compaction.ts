/**
 * Context compaction's part of the judge: the per-run cap, and what each attempt leaves behind
 * (a summary, a skip, a failure, shortened tool outputs). Every attempt counts toward the cap.
 */
import { recordStep, type ModelPrice } from "../caps/index.js"
import type { Usage } from "../model/index.js"
import { compactionText, type OutputShrink } from "../context/index.js"
import { fileIncident, judged, type Judged } from "./actions.js"
import { counted, type RunState } from "./state.js"

type Why = Readonly<Record<string, unknown>>

/** Whether one more compaction is allowed; at the cap it is filed once. */
export const judgeCompactionCap = (state: RunState, maxCompactions: number, why: Why): Judged & { readonly allowed: boolean } => {
  if (state.compactions < maxCompactions) return { ...judged(state), allowed: true }
  const filed = state.compactionCapped ? [] : [fileIncident({ step: state.step, detector: "compaction", action: "cap", detail: { ...why, maxCompactions } })]
  return { ...judged({ ...state, compactionCapped: true }, filed), allowed: false }
}

/** Nothing older than the kept steps: the attempt is filed, nothing is stored. */
export const judgeCompactionSkipped = (state: RunState, why: Why): Judged =>
  judged(state, [fileIncident({ step: state.step, detector: "compaction", action: "skipped", detail: { ...why, note: "nothing older than the kept steps" } })])

/** A failed attempt counts toward the cap: a broken summariser is not asked again every step. */
export const judgeCompactionFailed = (state: RunState, why: Why, error: string): Judged =>
  judged({ ...state, compactions: state.compactions + 1 }, [fileIncident({ step: state.step, detector: "compaction", action: "failed", detail: { ...why, error } })])

export interface Compacted {
  readonly why: Why
  readonly summary: string
  readonly usage: Usage | undefined
  readonly price: ModelPrice | null
  readonly range: { readonly from: string; readonly to: string }
  /** Messages the summary replaces. */
  readonly replaced: number
}

/** A summary made: stored in place of its range, metered, counted and filed. */
export const judgeCompacted = (state: RunState, c: Compacted): Judged => {
  // The summary request costs tokens like a step, but it is not a step of the agent.
  const metered = recordStep(state.meter, c.usage, c.price)
  const compactions = state.compactions + 1
  const next = counted({ ...state, meter: { ...metered, stepsUsed: state.meter.stepsUsed }, compactions, compactedSinceLastStep: true }, "compaction")
  return judged(next, [
    { _tag: "AppendCompaction", text: compactionText(c.summary), compacts: c.range },
    fileIncident({ step: state.step, detector: "compaction", action: "compacted", detail: { ...c.why, replaced: c.replaced, compactions } })
  ])
}

/** Old tool outputs shortened to `rung` from now on; counts as a compaction. */
export const judgeOutputShrink = (state: RunState, rung: OutputShrink, why: Why, outputs: number): Judged => {
  const next = counted({ ...state, outputShrink: rung, compactions: state.compactions + 1 }, "output-shrink")
  const detail = { ...why, maxChars: rung.maxChars, keptWhole: rung.keepRecent, outputs }
  return judged(next, [fileIncident({ step: state.step, detector: "compaction", action: "shrunk-outputs", detail })])
}

/** A reply the provider refused as too long, after the history was made smaller: taken back, the step taken again. */
export const judgeOverflowRetake = (state: RunState, replyId: string): Judged => judged(state, [{ _tag: "TakeBack", messageId: replyId, reason: "replayed" }])
