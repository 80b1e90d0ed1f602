/** Merging detector verdicts in the order the detectors run. */
import type { CropRequest, PauseRequest, Reminder, StepExit, StepVerdict } from "./step-detector.js"
import type { Incident } from "../../report/index.js"

export interface MergedVerdict {
  readonly incidents: Array<Incident>
  readonly reminders: Array<Reminder>
  crop: CropRequest | null
  cropped: boolean
  exit: StepExit | null
  pause: PauseRequest | null
  breakerTrip: "degrade" | "reroute" | undefined
  note: string | null | undefined
}

export const emptyMerge = (): MergedVerdict => ({
  incidents: [],
  reminders: [],
  crop: null,
  cropped: false,
  exit: null,
  pause: null,
  breakerTrip: undefined,
  note: undefined
})

/** Folds one verdict into the merge: later `exit`/`pause` replace, `…IfNone` only fill a gap. */
export const mergeInto = (into: MergedVerdict, v: StepVerdict): MergedVerdict => {
  if (v.incidents !== undefined) into.incidents.push(...v.incidents)
  if (v.reminders !== undefined) into.reminders.push(...v.reminders)
  if (v.crop !== undefined) into.crop = v.crop
  if (v.cropped === true) into.cropped = true
  if (v.exit !== undefined) into.exit = v.exit
  if (v.exitIfNone !== undefined) into.exit ??= v.exitIfNone
  if (v.pause !== undefined) into.pause = v.pause
  if (v.pauseIfNone !== undefined) into.pause ??= v.pauseIfNone
  if (v.breakerTrip !== undefined) into.breakerTrip = v.breakerTrip
  if (v.note !== undefined) into.note = v.note
  return into
}
