/**
 * What the proxy keeps of one request in the session store, beside the history the request
 * carried: the reminders it added at the end (synthetic user turns) and the reply the client got
 * (streamed, cut, or the proxy's own answer), under the wire position the reply takes in the
 * agent's next request, so that request stores nothing twice.
 */
import type { AssistantMessage, AssistantPart, Message, ReminderKind, UserMessage } from "@loopguard/core/model"
import { inputOf } from "./history.js"
import type { Conversation, Protocol, StreamWatch } from "./protocol.js"
import type { Insert } from "./verdict.js"

/** What a reply held: a stream's watch, or a whole reply read (`wholeReplySeen`). */
export type ReplySeen = Pick<StreamWatch, "text" | "reasoning" | "calls">

/** A whole (not streamed) reply the client got, read as a watch reads a stream: its text and calls. */
export const wholeReplySeen = (protocol: Protocol, json: unknown): ReplySeen => ({
  text: protocol.replyText(json),
  reasoning: "",
  calls: protocol.wholeCalls?.of(json) ?? []
})

/** The reply as a loopguard message; `notice` is the proxy's own text (a cut or a stop), kept as synthetic. */
export const replyMessage = (conversation: Conversation, watch: ReplySeen | null, notice: string | null, cut: boolean): AssistantMessage => {
  const parts: Array<AssistantPart> = []
  if (watch !== null && watch.reasoning !== "") parts.push({ type: "reasoning", text: watch.reasoning })
  if (watch !== null && watch.text !== "") parts.push({ type: "text", text: watch.text })
  if (notice !== null) parts.push({ type: "text", text: notice, synthetic: true })
  for (const call of cut ? [] : (watch?.calls ?? [])) parts.push({ type: "tool", callId: call.id, name: call.name, input: inputOf(call.args), state: "pending" })
  const last = [...conversation.messages].reverse().find((m): m is UserMessage => m.role === "user")
  const steps = conversation.messages.filter((m) => m.role === "assistant").length
  return {
    role: "assistant",
    id: `m${conversation.wireLength}`,
    parentId: last?.id ?? "root",
    parts,
    finish: parts.some((p) => p.type === "tool") ? "tool-calls" : "stop",
    step: steps
  }
}

/**
 * The reminders this request added at its end, as the synthetic user turns the RunLoop would store.
 * The note is not one: as in the RunLoop it is for this request only (given again with the next while
 * the episode lasts), and the request's log row names it.
 */
export const reminderMessages = (conversation: Conversation, inserts: ReadonlyArray<Insert>): ReadonlyArray<Message> =>
  inserts
    .filter((i) => i.before === null && i.kind !== "note")
    .map((i, n) => ({ role: "user", id: `r${conversation.wireLength}.${n}`, text: i.text, synthetic: (i.kind === "doom-loop" ? "loop-remind" : i.kind) as ReminderKind }))
