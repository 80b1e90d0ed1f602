/**
 * Thresholds of the in-stream repetition rule (docs/repetition.md) and their validation.
 *
 * The rule: within the last `window` tokens, some block of `p` tokens
 * (`minBlock` ≤ p ≤ floor(window / threshold)) repeats back to back `threshold` times, i.e. a
 * run of p·(threshold − 1) consecutive positions i with t[i] == t[i + p], and the block holds at
 * least `minDistinct` distinct tokens.
 */

export interface RepeatOptions {
  /** How many of the most recent tokens are considered. */
  readonly window: number
  /** How many back-to-back copies of a block make a repetition. */
  readonly threshold: number
  /** Shortest block (period) that counts. */
  readonly minBlock: number
  /** A block with fewer distinct tokens than this never counts ("哈哈哈…" is not a loop). */
  readonly minDistinct: number
}

export const DEFAULT_REPEAT_OPTIONS: RepeatOptions = {
  window: 500,
  threshold: 20,
  minBlock: 4,
  minDistinct: 3
}

/** Upper bound for `window`, so a typo in a config file cannot ask for gigabytes of state. */
export const MAX_REPEAT_WINDOW = 1_000_000

export interface RepeatOptionsError {
  readonly field: keyof RepeatOptions
  readonly message: string
}

/** Fill the fields a caller left out with the documented defaults. */
export const resolveRepeatOptions = (options: Partial<RepeatOptions> = {}): RepeatOptions => ({
  window: options.window ?? DEFAULT_REPEAT_OPTIONS.window,
  threshold: options.threshold ?? DEFAULT_REPEAT_OPTIONS.threshold,
  minBlock: options.minBlock ?? DEFAULT_REPEAT_OPTIONS.minBlock,
  minDistinct: options.minDistinct ?? DEFAULT_REPEAT_OPTIONS.minDistinct
})

/** The longest block the rule can see: `threshold` copies of it must fit in the window. */
export const maxRepeatPeriod = (options: RepeatOptions): number =>
  Math.floor(options.window / options.threshold)

const isCount = (n: number, min: number): boolean => Number.isSafeInteger(n) && n >= min

/**
 * Every problem with `options`, each naming its field; empty when the options are usable.
 * Relations are only checked once each field is valid on its own, so one mistake gives one error.
 */
export const validateRepeatOptions = (options: RepeatOptions): ReadonlyArray<RepeatOptionsError> => {
  const errors: Array<RepeatOptionsError> = []
  const { window, threshold, minBlock, minDistinct } = options
  if (!isCount(window, 1) || window > MAX_REPEAT_WINDOW) {
    errors.push({ field: "window", message: `window must be an integer from 1 to ${MAX_REPEAT_WINDOW} (got ${window})` })
  }
  if (!isCount(threshold, 2)) {
    errors.push({ field: "threshold", message: `threshold must be an integer >= 2 (got ${threshold})` })
  }
  if (!isCount(minBlock, 1)) {
    errors.push({ field: "minBlock", message: `minBlock must be an integer >= 1 (got ${minBlock})` })
  }
  if (!isCount(minDistinct, 1)) {
    errors.push({ field: "minDistinct", message: `minDistinct must be an integer >= 1 (got ${minDistinct})` })
  }
  if (errors.length > 0) return errors

  // Without room for `threshold` copies of the shortest block, no period exists and the guard
  // would silently never fire; that is a configuration mistake, not a way to switch it off.
  if (window < minBlock * threshold) {
    errors.push({
      field: "window",
      message: `window must be >= minBlock * threshold = ${minBlock * threshold} (got ${window})`
    })
    return errors
  }
  // A block of p tokens has at most p distinct tokens, so this could never hold either.
  const maxPeriod = maxRepeatPeriod(options)
  if (minDistinct > maxPeriod) {
    errors.push({
      field: "minDistinct",
      message: `minDistinct must be <= floor(window / threshold) = ${maxPeriod} (got ${minDistinct})`
    })
  }
  return errors
}

/** Resolve and validate; throws a RangeError naming every bad field (a programming/config error). */
export const checkedRepeatOptions = (options: Partial<RepeatOptions> = {}): RepeatOptions => {
  const resolved = resolveRepeatOptions(options)
  const errors = validateRepeatOptions(resolved)
  if (errors.length > 0) {
    throw new RangeError(`invalid repeat options: ${errors.map((e) => e.message).join("; ")}`)
  }
  return resolved
}
