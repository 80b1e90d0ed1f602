/**
 * Repeated action (docs/loops.md): the newest finished steps issued the very same tool calls. Stateless:
 * recomputed from the history each time a request is built, and the note it returns is added to
 * that request only (never stored, never counted, never terminates).
 */
import { isAssistant, toolSignature, type AssistantMessage, type Message } from "../model/message.js"
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
}

/** A step that ended and still belongs to the model's context. */
export const isFinishedReply = (m: Message): m is AssistantMessage =>
  isAssistant(m) && m.finish !== undefined && m.excluded === undefined

/** The same tool call (name and input) made in consecutive finished steps past the threshold, or null. */
export const repeatedAction = (
  messages: ReadonlyArray<Message>,
  opts: RepeatedActionOptions = DEFAULT_REPEATED_ACTION
): RepeatedAction | null => {
  let signature: string | null = null
  const stepIds: Array<string> = []
  const most = opts.maxCount ?? Number.POSITIVE_INFINITY
  for (let i = messages.length - 1; i >= 0 && stepIds.length < most; i--) {
    const m = messages[i]!
    // User turns (reminders included) and unfinished or excluded replies neither count nor break.
    if (!isFinishedReply(m)) continue
    const sig = toolSignature(m)
    if (sig === "") break // a step without tool calls ends the collection
    if (signature === null) signature = sig
    else if (sig !== signature) break
    stepIds.push(m.id)
  }
  if (signature === null || opts.repeats < 1 || stepIds.length < opts.repeats) return null
  return { note: opts.note, signature, count: stepIds.length, stepIds }
}
