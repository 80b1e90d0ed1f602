/**
 * Thresholds of the long-period in-stream rule (docs/repetition.md, "The long-period rule"),
 * which runs beside the short-period token rule and catches what that rule cannot: blocks longer than
 * floor(window / threshold) tokens, blocks whose numbers change from copy to copy, and
 * whitespace-free runs that are a single token.
 */

export interface LongRepeatOptions {
  readonly enabled: boolean
  /** Back-to-back copies of a block (numbers masked) that trip. */
  readonly copies: number
  /** A block of fewer tokens is the short-period rule's business (it trips on those at 20 copies), unless it holds few words. */
  readonly minBlockTokens: number
  /** A whitespace-free block (one token) this long trips at `copies` when it repeats exactly. */
  readonly minBlockChars: number
  /** Longest block the rule is guaranteed to see, in characters. Sets the memory bound. */
  readonly maxBlockChars: number
  /**
   * A short block (fewer than `minBlockTokens` tokens or `minWords` words, at least 3 words)
   * whose numbers change by the same step each copy (a counter line) trips once such copies
   * cover this many characters.
   */
  readonly shortChars: number
  /** A near-exact block must hold at least this many distinct words (numeric tables are not loops). */
  readonly minWords: number
  /** An exact repeat of a block with fewer than `minWords` words trips once it covers this many characters. */
  readonly runChars: number
  /**
   * Characters of chunks written several times in the last few thousand characters (in any
   * order, with gaps) that trip a stretch of prose made mostly of them: restarts, rotations.
   */
  readonly recurChars: number
  /** Whitespace characters in a row (spaces, line breaks, tabs) that trip: a flood burns the output budget unseen by the tokens. */
  readonly whitespaceChars: number
}

export const DEFAULT_LONG_REPEAT_OPTIONS: LongRepeatOptions = {
  enabled: true,
  copies: 4,
  minBlockTokens: 20,
  minBlockChars: 64,
  maxBlockChars: 8_000,
  minWords: 4,
  shortChars: 4_096,
  runChars: 1_024,
  recurChars: 2_048,
  whitespaceChars: 1_024
}

/** Upper bound for `maxBlockChars`, so a typo cannot ask for megabytes of state per stream. */
export const MAX_LONG_BLOCK_CHARS = 100_000

export interface LongRepeatOptionsError {
  readonly field: keyof LongRepeatOptions
  readonly message: string
}

/** Fill the fields a caller left out with the defaults. */
export const resolveLongRepeatOptions = (options: Partial<LongRepeatOptions> = {}): LongRepeatOptions => ({
  ...DEFAULT_LONG_REPEAT_OPTIONS,
  ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
})

const isCount = (n: number, min: number): boolean => Number.isSafeInteger(n) && n >= min

/** Every problem with `options`, each naming its field; empty when usable. */
export const validateLongRepeatOptions = (options: LongRepeatOptions): ReadonlyArray<LongRepeatOptionsError> => {
  const errors: Array<LongRepeatOptionsError> = []
  const { copies, minBlockTokens, minBlockChars, maxBlockChars, minWords, runChars, shortChars, recurChars, whitespaceChars } = options
  if (typeof options.enabled !== "boolean") errors.push({ field: "enabled", message: `enabled must be true or false (got ${String(options.enabled)})` })
  if (!isCount(copies, 2)) errors.push({ field: "copies", message: `copies must be an integer >= 2 (got ${copies})` })
  if (!isCount(minBlockTokens, 1)) errors.push({ field: "minBlockTokens", message: `minBlockTokens must be an integer >= 1 (got ${minBlockTokens})` })
  if (!isCount(minBlockChars, 1)) errors.push({ field: "minBlockChars", message: `minBlockChars must be an integer >= 1 (got ${minBlockChars})` })
  if (!isCount(maxBlockChars, 1) || maxBlockChars > MAX_LONG_BLOCK_CHARS) {
    errors.push({ field: "maxBlockChars", message: `maxBlockChars must be an integer from 1 to ${MAX_LONG_BLOCK_CHARS} (got ${maxBlockChars})` })
  }
  if (!isCount(minWords, 0)) errors.push({ field: "minWords", message: `minWords must be an integer >= 0 (got ${minWords})` })
  if (!isCount(shortChars, 1)) errors.push({ field: "shortChars", message: `shortChars must be an integer >= 1 (got ${shortChars})` })
  if (!isCount(runChars, 1)) errors.push({ field: "runChars", message: `runChars must be an integer >= 1 (got ${runChars})` })
  if (!isCount(recurChars, 1)) errors.push({ field: "recurChars", message: `recurChars must be an integer >= 1 (got ${recurChars})` })
  if (!isCount(whitespaceChars, 2)) errors.push({ field: "whitespaceChars", message: `whitespaceChars must be an integer >= 2 (got ${whitespaceChars})` })
  if (errors.length === 0 && minBlockChars > maxBlockChars) {
    errors.push({ field: "minBlockChars", message: `minBlockChars must be <= maxBlockChars = ${maxBlockChars} (got ${minBlockChars})` })
  }
  return errors
}

/** Options already resolved and found valid, by the object the caller passed (its fields are readonly): a proxy makes a guard per stream from one options object. */
const checkedBefore = new WeakMap<Partial<LongRepeatOptions>, LongRepeatOptions>()

/** Resolve and validate; throws a RangeError naming every bad field (a programming/config error). */
export const checkedLongRepeatOptions = (options: Partial<LongRepeatOptions> = {}): LongRepeatOptions => {
  const known = checkedBefore.get(options)
  if (known !== undefined) return known
  const resolved = resolveLongRepeatOptions(options)
  const errors = validateLongRepeatOptions(resolved)
  if (errors.length > 0) throw new RangeError(`invalid long repeat options: ${errors.map((e) => e.message).join("; ")}`)
  checkedBefore.set(options, resolved)
  return resolved
}
