/**
 * Failure streak: step after step fails — each with another command and another error — and
 * nothing is changed on disk in between. No single repeat shows (every call and every answer
 * differ), but an agent that has not had one command succeed in `steps` tries is flailing:
 * guessing package names, paths, flags. Pure: records in, finding out.
 */
import type { StepRecord } from "./step-record.js"

export interface FailureStreakOptions {
  /** Failing steps in a row that make a loop. */
  readonly steps: number
}

export const DEFAULT_FAILURE_STREAK: FailureStreakOptions = { steps: 8 }

export interface FailureStreak {
  /** Failing steps in a row, the newest included. */
  readonly count: number
  /** Distinct actions among them. */
  readonly distinct: number
}

/** The streak of failing steps the newest record ends, or null below `steps`. */
export const failureStreak = (records: ReadonlyArray<StepRecord>, opts: FailureStreakOptions = DEFAULT_FAILURE_STREAK): FailureStreak | null => {
  const actions = new Set<string>()
  let count = 0
  // Far past the top of the ladder the count changes nothing: a bounded look back.
  const floor = Math.max(0, records.length - opts.steps * 4)
  for (let i = records.length - 1; i >= floor; i--) {
    const r = records[i]!
    // A step without a tool call, a success or a file change ends the streak.
    if (r.action === "" || !r.failed || r.changed) break
    count++
    actions.add(r.action)
  }
  return count >= opts.steps ? { count, distinct: actions.size } : null
}
