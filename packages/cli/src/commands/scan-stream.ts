/**
 * `scan` over stdin as it arrives: the tokenizer and both rules are incremental, so a plain scan
 * holds the monitors' windows and one stdin chunk, not the whole input (100 MB of stdin used to
 * cost 1.6 GB). Gives exactly `scanRepetition(whole input)`: the stream tokenizer yields the
 * same tokens for any way of cutting the text, and the long rule counts characters across pushes.
 */
import {
  LongRepeatMonitor,
  PeriodicRepeatMonitor,
  StreamTokenizer,
  type FullScanResult,
  type LongRepeatOptions,
  type RepeatOptions,
  type ScanResult
} from "@loopguard/core/repeat"

export class StreamingScan {
  private readonly tokenizer = new StreamTokenizer()
  private readonly monitor: PeriodicRepeatMonitor
  private readonly long: LongRepeatMonitor
  private short: ScanResult | null = null
  private longTrip: FullScanResult["long"] = null

  constructor(options: Partial<RepeatOptions> = {}, long: Partial<LongRepeatOptions> = {}) {
    this.monitor = new PeriodicRepeatMonitor(options)
    this.long = new LongRepeatMonitor(long)
  }

  push(text: string): void {
    if (this.short === null) this.feed(this.tokenizer.push(text))
    if (this.longTrip === null) {
      const t = this.long.push(text)
      if (t !== null) this.longTrip = { token: t.token, char: t.char }
    }
  }

  /** The end of the input: a held partial word may still complete a loop. */
  end(): FullScanResult {
    if (this.short === null) this.feed(this.tokenizer.flush())
    return { ...(this.short ?? { repeat: false, token: null, period: null }), long: this.longTrip }
  }

  private feed(tokens: ReadonlyArray<string>): void {
    for (const token of tokens) {
      const trip = this.monitor.push(token)
      if (trip !== null) {
        this.short = { repeat: true, token: trip.token, period: trip.period }
        return
      }
    }
  }
}
