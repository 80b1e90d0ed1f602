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

/**
 * A named measurement a check printed with its unit (`p99=73.2ms`, `Size: 212.4 kB`, `coverage:
 * 81.5%`): what a budget or threshold check compares. Clock readings (`Time:`, `took`, `elapsed`)
 * vary from run to run by themselves and are no measure of the work.
 */
const MEASURE = /([A-Za-z][\w .-]{0,30}?)\s*[=:]\s*(\d+(?:\.\d+)?)\s?(ms|s|kb|kib|mb|mib|gb|b|%)(?![A-Za-z])/gi
const CLOCK = /time|took|elapsed|duration|wall|real|user|sys/i

/** The named measures a run printed, by name (lower-cased, spaces folded). */
export const measuresOf = (output: string): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  const tail = output.length > TAIL_CHARS ? output.slice(-TAIL_CHARS) : output
  for (const m of tail.matchAll(MEASURE)) {
    const name = `${m[1]!.trim().toLowerCase().replace(/\s+/g, " ")} ${m[3]!.toLowerCase()}`
    if (!CLOCK.test(m[1]!) && !out.has(name)) out.set(name, Number(m[2]))
  }
  return out
}

/**
 * Records set by a series of runs (oldest first): for each run, whether one of its measures went
 * past every earlier value in the direction that measure first moved (a p99 falling 73, 70, 66 ms
 * sets one each run; one bouncing 60, 62, 60, 62 sets one at its first move only).
 */
export const measureRecords = (runs: ReadonlyArray<ReadonlyMap<string, number>>): ReadonlyArray<boolean> => {
  const first = new Map<string, number>()
  const direction = new Map<string, number>()
  const extreme = new Map<string, number>()
  return runs.map((measures) => {
    let record = false
    for (const [name, value] of measures) {
      const start = first.get(name)
      if (start === undefined) {
        first.set(name, value)
        extreme.set(name, value)
        continue
      }
      const dir = direction.get(name) ?? Math.sign(value - start)
      if (dir === 0) continue
      direction.set(name, dir)
      if ((value - extreme.get(name)!) * dir > 0) {
        extreme.set(name, value)
        record = true
      }
    }
    return record
  })
}
