/**
 * The in-stream repetition guard of one generation. Text and reasoning deltas go through one
 * tokenizer into the short-period monitor and, beside it, into the long-period monitor, so a loop that
 * moves between reasoning and text is still one loop, and every caller (the runtime monitor,
 * the Effect AI decorator, the AI SDK middleware) trips on either rule from this one place.
 */
import type { LongRepeatOptions } from "./long-repeat-options.js"
import type { LongRepeatTrip } from "./long-repeat-monitor.js"
import { LongRepeatMonitor } from "./long-repeat-monitor.js"
import type { RepeatOptions } from "./repeat-options.js"
import type { RepeatTrip } from "./periodic-repeat-monitor.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { StreamTokenKeys } from "./token-keys.js"
import { GuardBuffers } from "./growable.js"

/** The short-period rule tripped: a block of `period` tokens repeated `repeats` times. */
export interface ShortGuardTrip extends RepeatTrip {
  readonly rule: "short"
}

/** The long-period rule tripped (docs/repetition.md). */
export interface LongGuardTrip extends LongRepeatTrip {
  readonly rule: "long"
}

export type GuardTrip = ShortGuardTrip | LongGuardTrip

export interface RepeatGuardOptions extends Partial<RepeatOptions> {
  /** The long-period rule's options; on by default. */
  readonly long?: Partial<LongRepeatOptions>
  /**
   * Internal: make every buffer at full size up front instead of on demand (growable.ts). The
   * verdicts are the same either way; the tests use it to check exactly that. Not a config key.
   */
  readonly preallocate?: boolean
  /**
   * Internal: the long rule trips only on exact repeats (and whitespace floods), not on blocks whose
   * numbers change or on recurring phrases. For a call's arguments: a file of numbered rows or
   * fixtures with rising ids is data asked for; a fragment written over and over is the runaway.
   * Not a config key.
   */
  readonly exactRepeatsOnly?: boolean
}

/** What the long rule saw, in words (its kind decides). */
const describeLongTrip = (trip: LongGuardTrip): string => {
  const at = `(character ${trip.char}, token ${trip.token})`
  if (trip.kind === "whitespace") return `a run of ${trip.copies} whitespace characters ${at}`
  if (trip.kind === "recurrence") {
    const most = trip.copies >= 2 ? `, one of them ${trip.copies} times` : ""
    return `the same phrases written over and over for ${trip.blockChars} characters${most} ${at}`
  }
  return `a block of ${trip.blockChars} characters repeated ${trip.copies} times${trip.view === "near" ? " (numbers masked)" : ""} ${at}`
}

/**
 * A tool call's arguments (JSON text, or a delta of it) as the guard reads them: escaped line
 * breaks and tabs as the characters they stand for, so the long rule's chunks follow the lines of
 * a file being written. An escaped backslash stays as written, and the letter after it stays a
 * letter (`\\n` in JSON is a backslash and an n, as in code that prints a line break).
 */
export const argumentsText = (args: string): string => args.replace(/\\[\\nt]/g, (e) => (e === "\\n" ? "\n" : e === "\\t" ? "\t" : e))

/** One line for logs and notices, for either rule. */
export const describeGuardTrip = (trip: GuardTrip): string =>
  trip.rule === "short" ? `a block of ${trip.period} tokens repeated ${trip.repeats} times (token ${trip.token})` : describeLongTrip(trip)

/** Text deltas in, repetition verdict out: the stream tokenizer feeding the short-period monitor, and the long-period monitor. */
export class RepeatGuard {
  // The short-period rule's tokens as keys: no string per token on the hot path (token-keys.ts).
  private readonly tokenizer = new StreamTokenKeys()
  private readonly monitor: PeriodicRepeatMonitor
  private readonly long: LongRepeatMonitor

  constructor(options: RepeatGuardOptions = {}) {
    const { long, preallocate, exactRepeatsOnly, ...short } = options
    // Each monitor its own: the long rule's reset hands its buffers to its new parts (GuardBuffers.recycle).
    this.monitor = new PeriodicRepeatMonitor(short, new GuardBuffers(preallocate === true))
    this.long = new LongRepeatMonitor(long ?? {}, new GuardBuffers(preallocate === true), exactRepeatsOnly === true)
  }

  get options(): RepeatOptions {
    return this.monitor.options
  }

  get longOptions(): LongRepeatOptions {
    return this.long.options
  }

  /** Bytes of the buffers the guard holds (both rules'; `GuardBuffers`). */
  get heldBytes(): number {
    return this.monitor.heldBytes + this.long.heldBytes
  }

  /** Tokens handed to the short-period monitor so far (a held partial word is not counted yet). */
  get tokensSeen(): number {
    return this.monitor.tokensSeen
  }

  /**
   * Feed a text or reasoning delta. Returns the first trip among the tokens it completed (the short-period rule's
   * rule first, as before), else the long rule's trip, or null. Every completed token is fed
   * even after a trip, so the state stays exact.
   */
  push(delta: string): GuardTrip | null {
    this.first = null
    this.tokenizer.each(delta, this.onToken)
    const long = this.long.push(delta)
    return this.first ?? (long === null ? null : { rule: "long", ...long })
  }

  private first: GuardTrip | null = null
  private readonly onToken = (key: number): void => {
    const trip = this.monitor.pushKey(key)
    if (this.first === null && trip !== null) this.first = { rule: "short", ...trip }
  }

  /**
   * Ends the held partial word. Call at the end of the stream, and at a boundary between parts
   * (reasoning → text) if a word must not run across it.
   */
  flush(): GuardTrip | null {
    const key = this.tokenizer.flush()
    const trip = key === null ? null : this.monitor.pushKey(key)
    return trip === null ? null : { rule: "short", ...trip }
  }

  reset(): void {
    this.tokenizer.reset()
    this.monitor.reset()
    this.long.reset()
  }
}
