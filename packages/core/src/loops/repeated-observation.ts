/**
 * Repeated observation: the same tool returns the same output, volatile parts masked, on several
 * steps in a row, none of which edits anything ("No matches found for …" ×5, an empty grep ×5).
 * The commands may all differ: what repeats is what the agent learns, i.e. nothing new.
 */
import type { StepRecord } from "./step-record.js"

export interface RepeatedObservationOptions {
  /** Consecutive steps with one masked observation that make a loop. */
  readonly repeats: number
  /** Fewer suffice when every one of them failed: the same error again and again. */
  readonly failedRepeats: number
}

export const DEFAULT_REPEATED_OBSERVATION: RepeatedObservationOptions = { repeats: 5, failedRepeats: 3 }

export interface RepeatedObservation {
  readonly tool: string
  /** Steps in a row (newest last) that returned it. */
  readonly count: number
  /** The masked observation, cut to 120 characters. */
  readonly observation: string
  /** Every step of the run failed. */
  readonly failed?: boolean
}

// A rejected edit changed nothing: "Your proposed edit has introduced new syntax error(s)" ×5 is
// a repeated observation too. A successful edit is progress, whatever it printed.
const qualifies = (r: StepRecord): boolean => r.action !== "" && !r.changed

/** The repeated observation the newest records end with, or null. */
export const repeatedObservation = (
  records: ReadonlyArray<StepRecord>,
  opts: RepeatedObservationOptions = DEFAULT_REPEATED_OBSERVATION
): RepeatedObservation | null => {
  const newest = records[records.length - 1]
  if (newest === undefined || !qualifies(newest)) return null
  let count = 1
  let allFailed = newest.failed
  for (let i = records.length - 2; i >= 0; i--) {
    const r = records[i]!
    if (!qualifies(r) || r.tool !== newest.tool || r.observation !== newest.observation) break
    count++
    allFailed &&= r.failed
  }
  if (count < (allFailed ? Math.min(opts.failedRepeats, opts.repeats) : opts.repeats)) return null
  return { tool: newest.tool, count, observation: newest.observation.slice(0, 120), ...(allFailed ? { failed: true } : {}) }
}
