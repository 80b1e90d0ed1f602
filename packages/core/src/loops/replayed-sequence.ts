/**
 * Replayed sequence: the newest steps repeat, in order, a stretch of earlier steps of the run
 * (the same file views again, the same probe commands again) with no file change since that
 * stretch began. An action cycle sees a sequence replayed back to back; this also sees one
 * replayed after a detour, and sequences longer than any cycle period.
 */
import type { StepRecord } from "./step-record.js"

export interface ReplayedSequenceOptions {
  /** Shortest replayed stretch, in steps. */
  readonly minLength: number
  /** How far back (in steps) an earlier copy is looked for. */
  readonly lookback: number
}

export const DEFAULT_REPLAYED_SEQUENCE: ReplayedSequenceOptions = { minLength: 6, lookback: 60 }

export interface ReplayedSequence {
  /** Steps replayed (the newest `length` steps equal `length` earlier ones). */
  readonly length: number
  /** How many steps before the replay the earlier copy began. */
  readonly distance: number
  /** Distinct actions in the replayed stretch. */
  readonly distinct: number
}

/** Distinct actions a replayed stretch must hold: one action again and again is repeated action. */
const MIN_DISTINCT = 3

/** The longest replay of an earlier stretch the newest records end with, or null. */
export const replayedSequence = (
  records: ReadonlyArray<StepRecord>,
  opts: ReplayedSequenceOptions = DEFAULT_REPLAYED_SEQUENCE
): ReplayedSequence | null => {
  const n = records.length
  // Only the stretch since the last file change counts: a replay across a change can be progress.
  let from = Math.max(0, n - opts.lookback)
  for (let i = n - 1; i >= from; i--) {
    if (records[i]!.changed || records[i]!.action === "") {
      from = i + 1
      break
    }
  }
  let best: ReplayedSequence | null = null
  // e = index where an earlier copy ends; the copy must end before the replay starts.
  for (let e = n - 2; e >= from; e--) {
    let length = 0
    while (e - length >= from && n - 1 - length > e && records[e - length]!.action === records[n - 1 - length]!.action) length++
    if (length < opts.minLength) continue
    const distinct = new Set(records.slice(n - length).map((r) => r.action)).size
    if (distinct < MIN_DISTINCT) continue
    if (best === null || length > best.length) best = { length, distance: n - length - (e - length + 1), distinct }
  }
  return best
}
