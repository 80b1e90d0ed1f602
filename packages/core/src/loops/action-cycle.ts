/**
 * Action cycle (beyond repeated action, which only sees A A A): the newest steps replay the tool calls of
 * the steps `period` earlier — A B A B A B, or A B C A B C A — with no successful edit in between
 * (an edit made again, as in apply A, revert A, apply A …, is none).
 * The repeated-action detector cannot see these (no two neighbours are equal), and they are the
 * commonest spin in real traces after plain repeats. Stateless and ephemeral like repeated action:
 * the caller adds a note to the next request only.
 */
import { jobAgnosticSignature, toolPartsOf, type AssistantMessage, type Message } from "../model/message.js"
import { isBookkeepingOnly, isFinishedReply } from "./repeated-action.js"
import { recordOf } from "./step-record.js"

export interface ActionCycleOptions {
  /** Shortest and longest cycle length in steps (a period of 1 is repeated action's business). */
  readonly minPeriod: number
  readonly maxPeriod: number
  /** Consecutive steps that must each replay the step `period` earlier. */
  readonly replays: number
}

export const DEFAULT_ACTION_CYCLE: ActionCycleOptions = { minPeriod: 2, maxPeriod: 8, replays: 4 }

export interface ActionCycle {
  readonly period: number
  /** The distinct signatures of one cycle, oldest first. */
  readonly cycle: ReadonlyArray<string>
  /** Steps in a row that replayed the step `period` earlier. */
  readonly replays: number
  /** Bookkeeping-only steps between them were skipped, not counted. */
  readonly bookkeepingSkipped: boolean
}

/**
 * A completed edit (a file really changed) is progress: a cycle across it is not a spin. So is a
 * shell command that writes or moves the working tree (`git bisect good` checks out the next commit).
 */
const changedFiles = (m: AssistantMessage): boolean =>
  toolPartsOf(m).some((p) => p.state === "completed" && (p.exitCode ?? 0) === 0 && p.diff !== undefined && p.diff !== "") || recordOf(m).changed

/**
 * The very same edit was made in the `within` finished steps before step `at`, with the same
 * answer: made again, it undoes an undo (apply A, revert A, apply A …) or writes what is already
 * there. That is no progress. One command answering otherwise (`git bisect bad`: "31 revisions
 * left", then "15") moved the tree somewhere new.
 */
const madeBefore = (messages: ReadonlyArray<Message>, at: number, sig: string, within: number): boolean => {
  const answer = recordOf(messages[at] as AssistantMessage).rawObservation
  let seen = 0
  for (let i = at - 1; i >= 0 && seen < within; i--) {
    const m = messages[i]!
    if (!isFinishedReply(m)) continue
    seen++
    if (jobAgnosticSignature(m) === sig && recordOf(m).rawObservation === answer) return true
  }
  return false
}

/**
 * The cycle of tool-call signatures the newest finished steps replay without changing a file, or
 * null. Bookkeeping-only steps are skipped (`bookkeepingSkipped`: a plan rewritten in new words
 * between the same three looks hides no cycle); a cycle of bookkeeping alone is still one.
 */
export const actionCycle = (messages: ReadonlyArray<Message>, opts: ActionCycleOptions = DEFAULT_ACTION_CYCLE): ActionCycle | null => {
  const skipping = signaturesBack(messages, opts, true)
  return cycleOf(skipping.sigs, opts, skipping.skipped) ?? cycleOf(signaturesBack(messages, opts, false).sigs, opts, false)
}

/** Newest first: the signatures of finished steps back to one without a tool call or with a file change. */
const signaturesBack = (messages: ReadonlyArray<Message>, opts: ActionCycleOptions, skipBookkeeping: boolean) => {
  const sigs: Array<string> = []
  let skipped = false
  const limit = opts.maxPeriod + opts.replays
  for (let i = messages.length - 1; i >= 0 && sigs.length < limit; i--) {
    const m = messages[i]!
    if (!isFinishedReply(m)) continue
    if (skipBookkeeping && isBookkeepingOnly(m)) {
      skipped = true
      continue
    }
    // A restarted background job's new id is no new call here (start, read, kill, again).
    const sig = jobAgnosticSignature(m)
    if (sig === "") break
    sigs.push(sig)
    if (changedFiles(m) && !madeBefore(messages, i, sig, limit)) break
  }
  return { sigs, skipped }
}

const cycleOf = (sigs: ReadonlyArray<string>, opts: ActionCycleOptions, bookkeepingSkipped: boolean): ActionCycle | null => {
  for (let p = Math.max(2, opts.minPeriod); p <= opts.maxPeriod; p++) {
    if (sigs.length < p + opts.replays) break
    let run = 0
    while (run < sigs.length - p && sigs[run] === sigs[run + p]) run++
    if (run < opts.replays) continue
    const cycle = sigs.slice(0, p).reverse()
    // A B A B with p = 4 is really p = 2; and a "cycle" of one action is repeated action.
    if (new Set(cycle).size < 2) continue
    return { period: p, cycle: [...new Set(cycle)], replays: run, bookkeepingSkipped }
  }
  return null
}
