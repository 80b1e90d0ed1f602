/**
 * REFERENCE ONLY — used by the tests and the benchmark, never by the guard.
 *
 * The short-period repetition rule (docs/repetition.md) written as literally as possible: after every token, rescan the
 * whole window for every period. That is what the reference implementation does, at
 * O(window × periods) per token; `PeriodicRepeatMonitor` must give exactly the same answers.
 */
import type { RepeatOptions } from "./repeat-options.js"
import { checkedRepeatOptions, maxRepeatPeriod } from "./repeat-options.js"
import type { RepeatTrip } from "./periodic-repeat-monitor.js"

export interface NaiveHold {
  readonly period: number
  /** Copies of the block in the longest qualifying run of that period in the window. */
  readonly repeats: number
}

const distinctCount = (tokens: ReadonlyArray<string>, from: number, length: number): number =>
  new Set(tokens.slice(from, from + length)).size

/**
 * The smallest period for which the rule holds on `windowTokens` (the last `window` tokens),
 * or null. For each p: a run of p·(threshold − 1) consecutive positions i, with i and i + p
 * inside the window, where t[i] == t[i + p], and the p tokens starting where that stretch starts
 * hold ≥ minDistinct distinct tokens.
 */
export const naiveHoldingPeriod = (
  windowTokens: ReadonlyArray<string>,
  options: RepeatOptions
): NaiveHold | null => {
  const n = windowTokens.length
  for (let p = options.minBlock; p <= maxRepeatPeriod(options); p++) {
    const need = p * (options.threshold - 1)
    let run = 0
    let longest = 0
    for (let i = 0; i + p < n; i++) {
      run = windowTokens[i] === windowTokens[i + p] ? run + 1 : 0
      // Literal check of every stretch of `need` positions ending here, no shortcut.
      if (run >= need && distinctCount(windowTokens, i - need + 1, p) >= options.minDistinct) {
        longest = Math.max(longest, run)
      }
    }
    if (longest > 0) return { period: p, repeats: Math.floor(longest / p) + 1 }
  }
  return null
}

/** The rescan as a monitor with the same contract as `PeriodicRepeatMonitor.push`. */
export class NaiveRescanMonitor {
  readonly options: RepeatOptions
  private readonly recent: Array<string> = []
  private seen = 0
  private holding: number | null = null

  constructor(options: Partial<RepeatOptions> = {}) {
    this.options = checkedRepeatOptions(options)
  }

  get tokensSeen(): number {
    return this.seen
  }

  get holdingPeriod(): number | null {
    return this.holding
  }

  push(token: string): RepeatTrip | null {
    const k = this.seen++
    this.recent.push(token)
    if (this.recent.length > this.options.window) this.recent.shift()
    const hold = naiveHoldingPeriod(this.recent, this.options)
    const wasHolding = this.holding !== null
    this.holding = hold === null ? null : hold.period
    if (hold === null || wasHolding) return null
    return { token: k, period: hold.period, repeats: hold.repeats }
  }

  reset(): void {
    this.recent.length = 0
    this.seen = 0
    this.holding = null
  }
}
