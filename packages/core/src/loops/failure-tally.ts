/**
 * A test or build run's own count of what failed and passed ("Tests: 12 failed, 40 passed",
 * "3 failing", "Found 5 errors", "FAILED (failures=2, errors=1)"). Masking numbers makes two runs
 * of a suite that fails less each time look the same; the tally tells progress from a loop.
 * Pure, never throws.
 */

export interface FailureTally {
  readonly failing: number
  readonly passing: number
}

// "12 failed", "3 failing", "5 errors", "1 failure", "2 tests failed", "4 broken", bun's "3 fail" (a count before its word) …
const COUNT_BEFORE = /\b(\d{1,7})\s+(?:tests?\s+|specs?\s+|examples?\s+)?(failed|failing|failures?|fail|errors?|broken|passed|passing|pass|succeeded)\b/gi
// … and "failures=2", "errors: 1", "Failed: 3", "passed=10" (a count after it).
const COUNT_AFTER = /\b(failures|errors|failed|passed)\s*[=:]\s*(\d{1,7})\b/gi
/** Summaries come last: only the output's tail is read. */
const TAIL_CHARS = 4_000

const isPassing = (word: string): boolean => /^(?:passed|passing|pass|succeeded)$/i.test(word)

/** The counts a run printed, or null when it printed none. */
export const failureTally = (output: string): FailureTally | null => {
  const tail = output.length > TAIL_CHARS ? output.slice(-TAIL_CHARS) : output
  let failing = 0
  let passing = 0
  let seen = false
  for (const m of tail.matchAll(COUNT_BEFORE)) {
    seen = true
    if (isPassing(m[2]!)) passing += Number(m[1])
    else failing += Number(m[1])
  }
  for (const m of tail.matchAll(COUNT_AFTER)) {
    seen = true
    if (isPassing(m[1]!)) passing += Number(m[2])
    else failing += Number(m[2])
  }
  return seen ? { failing, passing } : null
}

/** The newer run did better: fewer failures, or as many and more passes. Unknown counts are no progress. */
export const tallyImproved = (older: FailureTally | null, newer: FailureTally | null): boolean =>
  older !== null && newer !== null && (newer.failing < older.failing || (newer.failing === older.failing && newer.passing > older.passing))
