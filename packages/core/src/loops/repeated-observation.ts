/**
 * Repeated observation: the same tool returns the same output, volatile parts masked, on several
 * steps in a row, none of which edits anything ("No matches found for …" ×5, an empty grep ×5).
 * The commands may all differ: what repeats is what the agent learns, i.e. nothing new. Besides
 * the run in a row, a window mode sees the same answer coming back on most steps of a window
 * with other steps between (the agent alternates probes that all say the same). Polling a running
 * job whose output moves on (`sleep 30; tail train.log`, an empty `is_input`) learns something
 * each time, even when the masked output looks the same: such a poll never counts.
 *
 * Evidence, not likeness: a failing step is compared in the loose sense (the same error, names and
 * numbers masked); a step that worked is compared only in the strict sense (the very same output,
 * or the same once its own arguments and volatile numbers are masked), so `wc -l a.py` → `120 a.py`
 * and `wc -l b.py` → `87 b.py` differ, and only to the same call unless the answer says no
 * (`saysNo`): twelve modules that each import `ok` are twelve answers. Exploration — a lookup
 * asking something new, such as one more search that finds nothing — never counts.
 */
import { isExploration, sameLookupAnswer, type StepRecord } from "./step-record.js"
import { sawNew } from "./poll-wait.js"
import { MIN_COUNTED_RUN } from "./repeated-action.js"

export interface RepeatedObservationOptions {
  /** Consecutive steps with one masked observation that make a loop. */
  readonly repeats: number
  /** Fewer suffice when every one of them failed: the same error again and again. */
  readonly failedRepeats: number
  /** Window mode: steps looked at (never past a file change); 0 turns the mode off. */
  readonly window: number
  /** Window mode: steps of the window with the newest step's answer that make a loop. */
  readonly windowRepeats: number
}

export const DEFAULT_REPEATED_OBSERVATION: RepeatedObservationOptions = { repeats: 5, failedRepeats: 3, window: 10, windowRepeats: 7 }

export interface RepeatedObservation {
  readonly tool: string
  /** Steps in a row (newest last) that returned it. */
  readonly count: number
  /** The masked observation, cut to 120 characters. */
  readonly observation: string
  /** Every step of the run failed. */
  readonly failed?: boolean
  /** Found by the window mode: `count` of the last `window` steps, not all in a row. */
  readonly window?: number
}

// A rejected edit changed nothing: "Your proposed edit has introduced new syntax error(s)" ×5 is
// a repeated observation too. A successful edit is progress, whatever it printed.
// A passing verification run (tests, build) is progress too, however alike its output looks.
const qualifies = (records: ReadonlyArray<StepRecord>, i: number): boolean => {
  const r = records[i]!
  return r.action !== "" && !r.changed && !r.verified && !r.silent && !isExploration(records, i)
}

/**
 * Whether two steps gave the same answer: a failure in the loose sense, an answer in the strict one.
 * Two failing test runs or builds keep their names: the same test failing is one answer, the
 * suites of eight packages each failing on their own file (triage) are eight.
 */
const sameAnswer = (a: StepRecord, b: StepRecord): boolean => {
  if (a.tool !== b.tool || a.failed !== b.failed) return false
  // The same plain answer to another question (`ok` from importing each of twelve modules) is news;
  // two polls ask one question (how is the job?) in other words, and the same answer is no news.
  // So is the very same substantial answer to a lookup asked again in other words (`sameLookupAnswer`).
  if (!a.failed && a.action !== b.action && !(a.saysNo && b.saysNo) && !(a.poll && b.poll) && !sameLookupAnswer(a, b)) return false
  if (!a.failed) return a.argObservation === b.argObservation || a.rawObservation === b.rawObservation
  return a.observation === b.observation && (!a.verification || !b.verification || a.namedObservation === b.namedObservation)
}

/** A poll that saw something the step before it did not: progress of a job, not a repeat. */
const freshPoll = (records: ReadonlyArray<StepRecord>, i: number): boolean => records[i]!.poll && sawNew(records[i - 1], records[i]!)

// The harness's own "exit code 0" line is not an answer: commands that print nothing all end so.
const HARNESS_STATUS = /\[(?:The command|Command) (?:completed|finished)(?: with)? exit code 0\.?\]|Exit code: 0/g

/** An answer worth counting in the window mode: something besides the harness's status line. */
const substantial = (observation: string): boolean => observation.replace(HARNESS_STATUS, "").trim().length >= 8

/** The repeated observation the newest records end with, or null. */
export const repeatedObservation = (
  records: ReadonlyArray<StepRecord>,
  opts: RepeatedObservationOptions = DEFAULT_REPEATED_OBSERVATION
): RepeatedObservation | null => {
  const n = records.length
  const newest = records[n - 1]
  if (newest === undefined || !qualifies(records, n - 1) || freshPoll(records, n - 1)) return null
  let count = 1
  const allFailed = newest.failed
  // A run is counted to twice its threshold at most: thousands of the same answer must not cost
  // thousands of steps at every step.
  const most = Math.max(MIN_COUNTED_RUN, 2 * opts.repeats)
  for (let i = n - 2; i >= 0 && count < most; i--) {
    const r = records[i]!
    if (!qualifies(records, i) || freshPoll(records, i) || !sameAnswer(r, newest)) break
    count++
  }
  const found = { tool: newest.tool, observation: newest.observation.slice(0, 120) }
  if (count >= (allFailed ? Math.min(opts.failedRepeats, opts.repeats) : opts.repeats)) return { ...found, count, ...(allFailed ? { failed: true } : {}) }
  const inWindow = windowCount(records, opts.window)
  return inWindow >= opts.windowRepeats && opts.window > 0 ? { ...found, count: inWindow, window: opts.window } : null
}

/** Window mode: steps of the last `window` (back to a file change) that returned the newest step's answer. */
const windowCount = (records: ReadonlyArray<StepRecord>, window: number): number => {
  const n = records.length
  const newest = records[n - 1]!
  if (!substantial(newest.observation)) return 0
  let count = 0
  for (let i = n - 1; i >= Math.max(0, n - window); i--) {
    const r = records[i]!
    if (r.changed) break
    if (qualifies(records, i) && !freshPoll(records, i) && sameAnswer(r, newest)) count++
  }
  return count
}
