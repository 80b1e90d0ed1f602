/**
 * Repeated failure: the same command fails again and again with the same (masked) error, whether
 * or not files were edited in between — a test that keeps failing the same way after every edit
 * means the edits are not reaching the problem. Its earlier runs need not be consecutive: other
 * steps (edits, views) may lie between them, within `lookback` steps (repeats of a later step between
 * them not counted).
 */
import { measureRecords, measuresOf, tallyImproved } from "./failure-tally.js"
import type { StepRecord } from "./step-record.js"

export interface RepeatedFailureOptions {
  /** Runs of one action, each failing with one masked output, that make a loop. */
  readonly repeats: number
  /**
   * How far back the earlier runs are looked for, in steps: the runs and the steps between that do
   * something not done since (a step between repeating a later one's action is free); never past
   * 5 times as many steps.
   */
  readonly lookback: number
}

export const DEFAULT_REPEATED_FAILURE: RepeatedFailureOptions = { repeats: 3, lookback: 20 }

/** However often the steps between repeat, no earlier run is looked for past this many times `lookback` steps. */
const MAX_SCAN_FACTOR = 5

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
  const seen = new Set<string>()
  let budget = opts.lookback - 1
  for (let i = n - 2; i >= Math.max(0, n - MAX_SCAN_FACTOR * opts.lookback) && budget > 0; i--) {
    const r = records[i]!
    // A step between the runs that does again what a later one did brings nothing new and costs
    // none of the lookback: a restart cycle (start, probe, read the log, kill) costs two steps a
    // round (the probe and the kill of another pid), not four. The runs themselves always cost one.
    if (r.action === newest.action || !seen.has(r.action)) budget--
    seen.add(r.action)
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
