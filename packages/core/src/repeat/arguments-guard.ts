/**
 * The guard on tool calls' arguments as they stream: a write whose content loops is as much a
 * runaway as a reply that does. Its long rule trips on exact repeats only (`exactRepeatsOnly`);
 * a new call ends the word in progress.
 */
import { NO_POOL, PooledGuard, RepeatGuardPool } from "./guard-pool.js"
import { argumentsText, type GuardTrip, type RepeatGuardOptions } from "./repeat-guard.js"

/** Whether `text` ends in a backslash that escapes what comes next (an odd run of them). */
const endsInEscape = (text: string): boolean => {
  let run = 0
  while (run < text.length && text.charCodeAt(text.length - 1 - run) === 92) run++
  return run % 2 === 1
}

/** The options of a guard on calls' arguments, from a reply's guard options. */
export const argumentsGuardOptions = (options: RepeatGuardOptions): RepeatGuardOptions => ({ ...options, exactRepeatsOnly: true })

/** A stream's calls' arguments, read by one guard taken from `guards` (a pool of `argumentsGuardOptions`) at the first argument. */
export class ArgumentsGuard {
  private readonly guard: PooledGuard
  private call: string | null = null
  /** A backslash that ended the last delta: its escape (`\\n`) is read with the next one. */
  private heldEscape = ""

  constructor(guards: RepeatGuardPool) {
    this.guard = new PooledGuard(guards)
  }

  /** A guard of its own, not kept after the stream (for callers with one stream at a time). */
  static of(options: RepeatGuardOptions): ArgumentsGuard {
    return new ArgumentsGuard(new RepeatGuardPool(argumentsGuardOptions(options), NO_POOL))
  }

  /** A delta of the arguments (JSON text) of call `id`. */
  push(id: string, delta: string): GuardTrip | null {
    if (this.call !== id) this.heldEscape = ""
    this.call = id
    const text = this.heldEscape + delta
    const whole = endsInEscape(text) ? text.length - 1 : text.length
    this.heldEscape = text.slice(whole)
    return this.guard.push(id, argumentsText(text.slice(0, whole)))
  }

  /** The stream has ended: its guard goes back to the pool, and the next push takes another. */
  release(): void {
    this.guard.release()
    this.call = null
    this.heldEscape = ""
  }
}
