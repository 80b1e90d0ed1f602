/**
 * No-progress spin: over a window of steps nothing changed on disk, and most of the window's
 * actions were already issued earlier in the run, or most of its outputs were already seen. The
 * commands may all differ from their neighbours (so repeated action and cycles stay silent), but
 * the agent learns nothing new and changes nothing. An output seen before counts only when the
 * step failed (the same error again) and was no exploration: different searches that all find
 * nothing, different commands whose outputs share one masked shape, are how code is read.
 */
import { sawNew } from "./poll-wait.js"
import { countingOn } from "./progress-counter.js"
import { isExploration, type StepRecord } from "./step-record.js"

export interface NoProgressSpinOptions {
  /** Steps in the window. */
  readonly window: number
  /** Steps of the window that must repeat an earlier action (or an earlier output). */
  readonly minRepeats: number
}

export const DEFAULT_NO_PROGRESS_SPIN: NoProgressSpinOptions = { window: 10, minRepeats: 6 }

export interface NoProgressSpin {
  readonly window: number
  /** Steps of the window whose action was issued before (anywhere earlier in the run). */
  readonly repeatedActions: number
  /** Steps of the window whose masked output was seen before. */
  readonly repeatedOutputs: number
}

const outputKey = (r: StepRecord): string => `${r.tool}\u0000${r.observation}`

/**
 * A set of keys that holds long ones (whole commands, whole outputs) as a 64-bit hash (two 32-bit
 * FNV-style passes), so a run of any length carries a few bytes per distinct key. Short keys are
 * held as they are, and iterate as they are.
 */
class CarriedKeys implements Iterable<string> {
  private readonly keys = new Set<string>()

  private static keyOf(key: string): string {
    if (key.length <= 64) return key
    let a = 0x811c9dc5
    let b = 0x01000193 ^ key.length
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i)
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
    }
    return `#${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`
  }

  has(key: string): boolean {
    return this.keys.has(CarriedKeys.keyOf(key))
  }

  add(key: string): void {
    this.keys.add(CarriedKeys.keyOf(key))
  }

  clear(): void {
    this.keys.clear()
  }

  [Symbol.iterator](): Iterator<string> {
    return this.keys.values()
  }
}

/** What the prefix has seen: `has` answers for any key, long ones by their hash. */
export interface SeenKeys extends Iterable<string> {
  has(key: string): boolean
}

/**
 * The actions and outputs of the records before the window, carried from one call to the next:
 * rebuilding them from the whole run after every step made each step cost more than the last.
 * Extended while the records it holds are still the same objects at the same places (records are
 * kept per stored message), or the same objects moved to the front (a store that keeps only its
 * newest messages dropped the oldest: what they did was still done earlier in the run); rebuilt
 * when one went away otherwise (a rollback, an exclusion).
 */
export class SpinPrefix {
  private held: Array<StepRecord> = []
  private heldVersion: number | undefined
  private readonly actionSet = new CarriedKeys()
  private readonly outputSet = new CarriedKeys()

  /**
   * `version`: the records' `StepRecordLog.version`, which changes whenever a record went away or
   * was replaced; while it stays the same the held prefix is known to be intact and is not compared.
   */
  seen(records: ReadonlyArray<StepRecord>, end: number, version?: number): { readonly actions: SeenKeys; readonly outputs: SeenKeys } {
    const trusted = version !== undefined && version === this.heldVersion && this.held.length <= end
    this.heldVersion = version
    if (!trusted && !this.follows(records, end)) {
      this.held = []
      this.actionSet.clear()
      this.outputSet.clear()
    }
    for (let i = this.held.length; i < end; i++) {
      const r = records[i]!
      if (r.action !== "") this.actionSet.add(r.coreAction)
      this.outputSet.add(outputKey(r))
      this.held.push(r)
    }
    return { actions: this.actionSet, outputs: this.outputSet }
  }

  /** Do `records` continue what is held (in place, or with its oldest records dropped)? */
  private follows(records: ReadonlyArray<StepRecord>, end: number): boolean {
    const shift = records.length === 0 ? 0 : Math.max(0, this.held.indexOf(records[0]!))
    if (shift > 0) this.held = this.held.slice(shift)
    if (this.held.length > end) return false
    for (let i = 0; i < this.held.length; i++) if (this.held[i] !== records[i]) return false
    return true
  }
}

/** A spin over the newest `window` records, or null. Pass the same `prefix` (and the log's `version`, when the records come from a `StepRecordLog`) on every step of a run. */
export const noProgressSpin = (
  records: ReadonlyArray<StepRecord>,
  opts: NoProgressSpinOptions = DEFAULT_NO_PROGRESS_SPIN,
  prefix: SpinPrefix = new SpinPrefix(),
  version?: number
): NoProgressSpin | null => {
  const n = records.length
  if (n < opts.window) return null
  const start = n - opts.window
  // Kept up to date at every step, changes or not: a windowed store may drop a record soon after.
  const before = prefix.seen(records, start, version)
  for (let i = start; i < n; i++) if (records[i]!.changed) return null
  // Seen in the window itself: kept apart so the carried sets only ever hold the prefix.
  const actions = new Set<string>()
  const outputs = new Set<string>()
  let repeatedActions = 0
  let repeatedOutputs = 0
  let repeatedSteps = 0
  let newestRepeats = false
  for (let i = start; i < n; i++) {
    const r = records[i]!
    const output = outputKey(r)
    const seenOutput = before.outputs.has(output) || outputs.has(output)
    // Paging (the same call again, something new each time: scroll down, next page) is reading;
    // a poll of a running job whose output moved on is waiting. Neither repeats anything.
    // A batch run again while its printed counter moves on (5000/50000, then 10000/50000) pages too.
    const paging = i > 0 && records[i - 1]!.action === r.action && (!seenOutput || countingOn([records[i - 1]!.rawObservation, r.rawObservation]))
    const freshPoll = r.poll && sawNew(records[i - 1], r)
    // The same run read through another pipe (`| tail -n 20`, then `| grep FAIL`) repeats it: `coreAction`.
    const repeatsAction = r.action !== "" && (before.actions.has(r.coreAction) || actions.has(r.coreAction)) && !paging && !freshPoll
    const repeatsOutput = r.action !== "" && seenOutput && r.failed && !freshPoll && !r.silent && !isExploration(records, i)
    if (repeatsAction) repeatedActions++
    if (repeatsOutput) repeatedOutputs++
    if (repeatsAction || repeatsOutput) repeatedSteps++
    newestRepeats = repeatsAction || repeatsOutput
    if (r.action !== "") actions.add(r.coreAction)
    outputs.add(output)
  }
  // The spin goes on only while the newest step repeats something: a new step ends the episode.
  if (!newestRepeats || repeatedSteps < opts.minRepeats) return null
  return { window: opts.window, repeatedActions, repeatedOutputs }
}
