/**
 * The in-stream repetition guard of one generation: text and reasoning deltas go through one
 * tokenizer into one monitor (SPEC §1), so a loop that moves between reasoning and text is
 * still one loop.
 */
import type { RepeatOptions } from "./repeat-options.js"
import type { RepeatTrip } from "./periodic-repeat-monitor.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { StreamTokenizer } from "./tokenizer.js"

/** Text deltas in, repetition verdict out: the stream tokenizer and the periodic-repeat monitor together. */
export class RepeatGuard {
  private readonly tokenizer = new StreamTokenizer()
  private readonly monitor: PeriodicRepeatMonitor

  constructor(options: Partial<RepeatOptions> = {}) {
    this.monitor = new PeriodicRepeatMonitor(options)
  }

  get options(): RepeatOptions {
    return this.monitor.options
  }

  /** Tokens handed to the monitor so far (a held partial word is not counted yet). */
  get tokensSeen(): number {
    return this.monitor.tokensSeen
  }

  /**
   * Feed a text or reasoning delta. Returns the first trip among the tokens it completed, or
   * null. Every completed token is fed even after a trip, so the state stays exact.
   */
  push(delta: string): RepeatTrip | null {
    this.first = null
    this.tokenizer.each(delta, this.onToken)
    return this.first
  }

  private first: RepeatTrip | null = null
  private readonly onToken = (token: string): void => {
    const trip = this.monitor.push(token)
    if (this.first === null) this.first = trip
  }

  /**
   * Ends the held partial word. Call at the end of the stream, and at a boundary between parts
   * (reasoning → text) if a word must not run across it.
   */
  flush(): RepeatTrip | null {
    return this.feed(this.tokenizer.flush())
  }

  reset(): void {
    this.tokenizer.reset()
    this.monitor.reset()
  }

  private feed(tokens: ReadonlyArray<string>): RepeatTrip | null {
    let first: RepeatTrip | null = null
    for (const token of tokens) {
      const trip = this.monitor.push(token)
      if (first === null) first = trip
    }
    return first
  }
}
