/**
 * The words the proxy writes into a conversation, and how it recognises them when the agent sends
 * them back: a later request's history is the only memory the proxy has, so the escalation and the
 * reset after a stop are read from these marks.
 */

import type { CallFault } from "./protocol.js"

/** Starts the visible notice at the end of a reply the proxy cut for repeating itself. */
export const CUT_MARK = "[loopguard: this reply started repeating itself"

/** Starts every answer the proxy gives itself, without going upstream, to stop a loop. */
export const STOP_MARK = "[loopguard stopped this turn]"

/** The notice appended where a repeating reply was cut. */
export const cutNotice = (what: string): string => `\n\n${CUT_MARK} (${what}) and was cut here.]`

/** What the stop answer says: which loop, the evidence, what to do next. */
export const stopAnswer = (loop: string, evidence: string, next: string): string =>
  `${STOP_MARK} ${loop}. Evidence: ${evidence}. Next step: ${next}`

export const isCutReply = (text: string): boolean => text.includes(CUT_MARK)
export const isStopAnswer = (text: string): boolean => text.includes(STOP_MARK)

/** Said in place of a call refused before it could run (a tool past its cap: `toolCaps`). */
export const refusalNotice = (refusal: string): string => `\n\n[loopguard: ${refusal}]`

/**
 * Said in place of a tool call whose arguments were cut off, or came whole but not as a JSON object,
 * or named one key twice (`CallFault`): it is not passed on, so it cannot run.
 */
export const cutCallNotice = (name: string, fault: CallFault = "cut-off"): string =>
  fault === "not-an-object"
    ? `\n\n[loopguard: the call to ${name} came with arguments that are not a JSON object, so it was not passed on. Make the call again with its arguments as one JSON object.]`
    : fault === "key-twice"
      ? `\n\n[loopguard: the call to ${name} named the same argument twice, so which value was meant is unclear and it was not passed on. Make the call again with each argument once.]`
      : `\n\n[loopguard: the call to ${name} was cut off before its arguments were complete, so it was not passed on. Make the call again.]`

/** What the request's record says of such a call. */
export const cutCallDetail = (name: string, fault: CallFault = "cut-off"): string =>
  fault === "not-an-object"
    ? `the arguments of a call to ${name} were not a JSON object`
    : fault === "key-twice"
      ? `the arguments of a call to ${name} named a key twice`
      : `the arguments of a call to ${name} were cut off`
