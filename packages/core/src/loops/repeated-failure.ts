/**
 * Repeated failure: the same command fails again and again with the same (masked) error, whether
 * or not files were edited in between — a test that keeps failing the same way after every edit
 * means the edits are not reaching the problem. Its earlier runs need not be consecutive: other
 * steps (edits, views) may lie between them, within `lookback` steps.
 */
import { tallyImproved } from "./failure-tally.js"
import type { StepRecord } from "./step-record.js"

export interface RepeatedFailureOptions {
  /** Runs of one action, each failing with one masked output, that make a loop. */
  readonly repeats: number
  /** How far back (in steps) the earlier runs are looked for. */
  readonly lookback: number
}

export const DEFAULT_REPEATED_FAILURE: RepeatedFailureOptions = { repeats: 3, lookback: 20 }

export interface RepeatedFailure {
  readonly action: string
  /** Runs of it that failed the same way, newest last, without a different result between. */
  readonly count: number
  /** Files were changed between the first of them and the newest. */
  readonly editedBetween: boolean
  readonly observation: string
}

/** The newest record's failure, when the same action failed the same way `repeats` times. */
export const repeatedFailure = (records: ReadonlyArray<StepRecord>, opts: RepeatedFailureOptions = DEFAULT_REPEATED_FAILURE): RepeatedFailure | null => {
  const n = records.length
  const newest = records[n - 1]
  if (newest === undefined || newest.action === "" || !newest.failed) return null
  let count = 1
  let editedBetween = false
  let changedSince = false
  let newer = newest
  for (let i = n - 2; i >= Math.max(0, n - opts.lookback); i--) {
    const r = records[i]!
    if (r.action !== newest.action) {
      changedSince ||= r.changed
      continue
    }
    // The same action with another result (a success, another error) ends the streak.
    // Compared with names kept: a build that fails on another identifier each time moves on.
    if (!r.failed || r.observation !== newest.observation || r.namedObservation !== newest.namedObservation) break
    // Fewer failing since this run (19 failing, then 18 …): the edits are reaching the problem.
    if (tallyImproved(r.tally, newer.tally)) break
    newer = r
    count++
    editedBetween ||= changedSince
  }
  if (count < opts.repeats) return null
  return { action: newest.action, count, editedBetween, observation: newest.observation.slice(0, 120) }
}
