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

/** A spin over the newest `window` records, or null. */
export const noProgressSpin = (records: ReadonlyArray<StepRecord>, opts: NoProgressSpinOptions = DEFAULT_NO_PROGRESS_SPIN): NoProgressSpin | null => {
  const n = records.length
  if (n < opts.window) return null
  const start = n - opts.window
  for (let i = start; i < n; i++) if (records[i]!.changed) return null
  const actions = new Set<string>()
  const outputs = new Set<string>()
  for (let i = 0; i < start; i++) {
    const r = records[i]!
    if (r.action !== "") actions.add(r.action)
    outputs.add(`${r.tool}\u0000${r.observation}`)
  }
  let repeatedActions = 0
  let repeatedOutputs = 0
  for (let i = start; i < n; i++) {
    const r = records[i]!
    const output = `${r.tool}\u0000${r.observation}`
    const seenOutput = outputs.has(output)
    // Paging (the same call again, something new each time: scroll down, next page) is reading.
    const paging = i > 0 && records[i - 1]!.action === r.action && !seenOutput
    if (r.action !== "" && actions.has(r.action) && !paging) repeatedActions++
    if (r.action !== "" && seenOutput) repeatedOutputs++
    if (r.action !== "") actions.add(r.action)
    outputs.add(output)
  }
  if (repeatedActions < opts.minRepeats && repeatedOutputs < opts.minRepeats) return null
  return { window: opts.window, repeatedActions, repeatedOutputs }
}
