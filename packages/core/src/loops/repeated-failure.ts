/**
 * Repeated failure: the same command fails again and again with the same (masked) error, whether
 * or not files were edited in between — a test that keeps failing the same way after every edit
 * means the edits are not reaching the problem. Its earlier runs need not be consecutive: other
 * steps (edits, views) may lie between them, within `lookback` steps.
 */
import { measureRecords, measuresOf, tallyImproved } from "./failure-tally.js"
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
  // The runs of the streak, newest first, each with whether a file changed between it and the next.
  const runs: Array<{ readonly run: StepRecord; readonly editedAfter: boolean }> = [{ run: newest, editedAfter: false }]
  let changedSince = false
  for (let i = n - 2; i >= Math.max(0, n - opts.lookback); i--) {
    const r = records[i]!
    if (r.action !== newest.action) {
      changedSince ||= r.changed
      continue
    }
    // The same action with another result (a success, another error) ends the streak.
    // Compared with names kept: a build that fails on another identifier each time moves on.
    if (!r.failed || r.observation !== newest.observation || r.namedObservation !== newest.namedObservation) break
    runs.push({ run: r, editedAfter: changedSince })
    changedSince = false
  }
  const counted = runs.slice(0, sinceLastRecord(runs.map((x) => x.run)))
  if (counted.length < opts.repeats) return null
  // Edits between the runs counted: after each but the newest.
  const editedBetween = counted.slice(1).some((x) => x.editedAfter)
  return { action: newest.action, count: counted.length, editedBetween, observation: newest.observation.slice(0, 120) }
}

/**
 * How many of the runs (newest first) count: those since the last run that did better than every
 * run before it (fewer failing, or as many and more passing: `failureTally`; or a measure the check
 * printed past all its earlier values: `measureRecords`). A suite going 19, 18, 17 failing, or a
 * p99 going 73, 70, 66 ms against its budget, sets a record each run and is moving on; one bouncing
 * 3, 2, 3, 2 or going round 5, 4, 3, 5, 4, 3 is not, and its runs since its best count. Runs
 * without counts or measures set no record.
 */
/** A record's measures, read once: the judge asks about the same runs at every step. */
const measured = new WeakMap<StepRecord, ReadonlyMap<string, number>>()
const measuresOfRecord = (r: StepRecord): ReadonlyMap<string, number> => {
  let m = measured.get(r)
  if (m === undefined) measured.set(r, (m = measuresOf(r.rawObservation)))
  return m
}

const sinceLastRecord = (runs: ReadonlyArray<StepRecord>): number => {
  const oldestFirst = [...runs].reverse()
  const measureRecordAt = measureRecords(oldestFirst.map(measuresOfRecord))
  let best = oldestFirst[0]?.tally ?? null
  let last = 0
  oldestFirst.forEach((r, i) => {
    if (i === 0) return
    if (tallyImproved(best, r.tally) || measureRecordAt[i] === true) last = i
    if (tallyImproved(best, r.tally)) best = r.tally
  })
  return runs.length - last
}
