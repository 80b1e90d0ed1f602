/**
 * Repeated action (docs/loops.md): the newest finished steps issued the very same tool calls. Stateless:
 * recomputed from the history each time a request is built, and the note it returns is added to
 * that request only (never stored, never counted, never terminates).
 */
import { isAssistant, toolPartsOf, toolSignature, type AssistantMessage, type Message } from "../model/message.js"
import { DEFAULT_BOOKKEEPING_TOOLS } from "../try-best/options.js"
import { REPEATED_ACTION_NOTE } from "./prompts.js"

export interface RepeatedActionOptions {
  /** How many newest steps must share one tool-call signature. */
  readonly repeats: number
  /** The note for the request being built. */
  readonly note: string
  /**
   * The most newest steps counted: past the ladder's top a longer run changes nothing, and a
   * history of thousands of identical steps must not cost thousands of steps at every step.
   */
  readonly maxCount?: number
}

/**
 * A run of one step (or one answer) is counted to at least this many newest steps, and further only
 * when a ladder's top asks for it: past its stop a longer run changes nothing.
 */
export const MIN_COUNTED_RUN = 64

export const DEFAULT_REPEATED_ACTION: RepeatedActionOptions = { repeats: 3, note: REPEATED_ACTION_NOTE }

export interface RepeatedAction {
  readonly note: string
  /** The shared signature: tool names + sorted-key argument JSON, in call order. */
  readonly signature: string
  /** How many newest finished steps in a row carry it (≥ repeats). */
  readonly count: number
  /** Their message ids, newest first. */
  readonly stepIds: ReadonlyArray<string>
  /** Bookkeeping-only steps (`isBookkeepingOnly`) between them were skipped, not counted. */
  readonly bookkeepingSkipped: boolean
}

/** A step that ended and still belongs to the model's context. */
export const isFinishedReply = (m: Message): m is AssistantMessage =>
  isAssistant(m) && m.finish !== undefined && m.excluded === undefined

/**
 * A step whose every call only keeps the agent's own notes (a todo list, a plan, a thought): it says
 * something new each time and does nothing, so it neither counts in a run of one action nor breaks
 * it (read a file, rewrite the todo list, read it again …: the same read three times). Its
 * step record's role is "bookkeeping".
 */
export const isBookkeepingOnly = (m: AssistantMessage): boolean => {
  const parts = toolPartsOf(m)
  return parts.length > 0 && parts.every((p) => DEFAULT_BOOKKEEPING_TOOLS.includes(p.name.toLowerCase()))
}

/**
 * The same tool call (name and input) made in consecutive finished steps past the threshold, or null.
 * Bookkeeping-only steps are skipped between the calls (`bookkeepingSkipped`); a run of nothing but
 * bookkeeping (the same todo list written again and again) is still one, counted as it is.
 */
export const repeatedAction = (
  messages: ReadonlyArray<Message>,
  opts: RepeatedActionOptions = DEFAULT_REPEATED_ACTION
): RepeatedAction | null => repeatedRun(messages, opts, true) ?? repeatedRun(messages, opts, false)

const repeatedRun = (messages: ReadonlyArray<Message>, opts: RepeatedActionOptions, skipBookkeeping: boolean): RepeatedAction | null => {
  let signature: string | null = null
  let skipped = false
  const stepIds: Array<string> = []
  const most = opts.maxCount ?? Number.POSITIVE_INFINITY
  for (let i = messages.length - 1; i >= 0 && stepIds.length < most; i--) {
    const m = messages[i]!
    // User turns (reminders included) and unfinished or excluded replies neither count nor break.
    if (!isFinishedReply(m)) continue
    if (skipBookkeeping && isBookkeepingOnly(m)) {
      skipped = true
      continue
    }
    const sig = toolSignature(m)
    if (sig === "") break // a step without tool calls ends the collection
    if (signature === null) signature = sig
    else if (sig !== signature) break
    stepIds.push(m.id)
  }
  if (signature === null || opts.repeats < 1 || stepIds.length < opts.repeats) return null
  return { note: opts.note, signature, count: stepIds.length, stepIds, bookkeepingSkipped: skipped }
}
