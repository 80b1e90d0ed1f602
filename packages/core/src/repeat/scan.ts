/** One-shot check of a complete text, as `loopguard scan` reports it (one JSONL line = one text). */
import type { RepeatOptions } from "./repeat-options.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { tokenize } from "./tokenizer.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import { scanLongRepeat } from "./long-repeat-monitor.js"

export interface ScanResult {
  readonly repeat: boolean
  /** 0-based index, in the text's token sequence, of the token that first made the rule hold. */
  readonly token: number | null
  /** Smallest block length that holds at that moment. */
  readonly period: number | null
}

/** The first trip over the tokens of `text`. Throws a RangeError only for invalid options. */
export const scanText = (text: string, options: Partial<RepeatOptions> = {}): ScanResult => {
  const monitor = new PeriodicRepeatMonitor(options)
  for (const token of tokenize(text)) {
    const trip = monitor.push(token)
    if (trip !== null) return { repeat: true, token: trip.token, period: trip.period }
  }
  return { repeat: false, token: null, period: null }
}

/** The short-period rule's verdict plus the long-period rule's first trip, as `loopguard scan` prints both. */
export interface FullScanResult extends ScanResult {
  readonly long: { readonly token: number; readonly char: number } | null
}

/** Both rules over one whole text (`loopguard scan`). Throws a RangeError only for invalid options. */
export const scanRepetition = (
  text: string,
  options: Partial<RepeatOptions> = {},
  long: Partial<LongRepeatOptions> = {}
): FullScanResult => {
  const trip = scanLongRepeat(text, long)
  return { ...scanText(text, options), long: trip === null ? null : { token: trip.token, char: trip.char } }
}
