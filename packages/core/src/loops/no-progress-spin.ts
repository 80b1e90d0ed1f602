/**
 * No-progress spin: over a window of steps nothing changed on disk, and most of the window's
 * actions were already issued earlier in the run, or most of its outputs were already seen. The
 * commands may all differ from their neighbours (so repeated action and cycles stay silent), but
 * the agent learns nothing new and changes nothing.
 */
import type { StepRecord } from "./step-record.js"

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
 * The actions and outputs of the records before the window, carried from one call to the next:
 * rebuilding them from the whole run after every step made each step cost more than the last.
 * Extended while the records it holds are still the same objects at the same places (records are
 * kept per stored message), rebuilt when one went away (a rollback, an exclusion).
 */
export class SpinPrefix {
  private held: Array<StepRecord> = []
  private heldVersion: number | undefined
  private readonly actionSet = new Set<string>()
  private readonly outputSet = new Set<string>()

  /**
   * `version`: the records' `StepRecordLog.version`, which changes whenever a record went away or
   * was replaced; while it stays the same the held prefix is known to be intact and is not compared.
   */
  seen(records: ReadonlyArray<StepRecord>, end: number, version?: number): { readonly actions: ReadonlySet<string>; readonly outputs: ReadonlySet<string> } {
    let same = this.held.length <= end
    const trusted = version !== undefined && version === this.heldVersion
    for (let i = 0; same && !trusted && i < this.held.length; i++) same = this.held[i] === records[i]
    this.heldVersion = version
    if (!same) {
      this.held = []
      this.actionSet.clear()
      this.outputSet.clear()
    }
    for (let i = this.held.length; i < end; i++) {
      const r = records[i]!
      if (r.action !== "") this.actionSet.add(r.action)
      this.outputSet.add(outputKey(r))
      this.held.push(r)
    }
    return { actions: this.actionSet, outputs: this.outputSet }
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
  for (let i = start; i < n; i++) if (records[i]!.changed) return null
  const before = prefix.seen(records, start, version)
  // Seen in the window itself: kept apart so the carried sets only ever hold the prefix.
  const actions = new Set<string>()
  const outputs = new Set<string>()
  let repeatedActions = 0
  let repeatedOutputs = 0
  let newestRepeats = false
  for (let i = start; i < n; i++) {
    const r = records[i]!
    const output = outputKey(r)
    const seenOutput = before.outputs.has(output) || outputs.has(output)
    // Paging (the same call again, something new each time: scroll down, next page) is reading;
    // a poll of a running job whose output moved on is waiting. Neither repeats anything.
    const paging = i > 0 && records[i - 1]!.action === r.action && !seenOutput
    const freshPoll = r.poll && (i === 0 || records[i - 1]!.rawObservation !== r.rawObservation)
    const repeatsAction = r.action !== "" && (before.actions.has(r.action) || actions.has(r.action)) && !paging && !freshPoll
    const repeatsOutput = r.action !== "" && seenOutput && !freshPoll && !r.silent
    if (repeatsAction) repeatedActions++
    if (repeatsOutput) repeatedOutputs++
    newestRepeats = repeatsAction || repeatsOutput
    if (r.action !== "") actions.add(r.action)
    outputs.add(output)
  }
  // The spin goes on only while the newest step repeats something: a new step ends the episode.
  if (!newestRepeats || (repeatedActions < opts.minRepeats && repeatedOutputs < opts.minRepeats)) return null
  return { window: opts.window, repeatedActions, repeatedOutputs }
}
