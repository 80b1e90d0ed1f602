/**
 * Which conversation a request belongs to: the id the agent names in a header, else a hash of
 * the system prompt, the first user message and the id the agent gives the conversation in the body
 * when it gives one (the same on every request of a conversation, and on every replica).
 */
import { createHash } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import type { Conversation } from "./protocol.js"

/** Ids the store accepts and a log line can show: printable, bounded. */
const SAFE_ID = /^[A-Za-z0-9._:@-]{1,128}$/

/** The id the agent names in `header`, as it sent it (blank: none). */
const namedId = (headers: IncomingHttpHeaders, header: string): string | undefined => {
  const named = headers[header.toLowerCase()]
  const value = Array.isArray(named) ? named[0] : named
  return value === "" ? undefined : value
}

/**
 * Why the id named in `header` is refused, or null (none named, or a good one). An agent that names
 * its session means that one: replacing a bad id with a derived one would file its requests under a
 * session it never sees, so it is told instead (400), as the HTTP stack tells a control character.
 */
export const sessionHeaderRefusal = (headers: IncomingHttpHeaders, header: string): string | null => {
  const value = namedId(headers, header)
  if (value === undefined || SAFE_ID.test(value)) return null
  const shown = value.length > 60 ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)` : JSON.stringify(value)
  return `loopguard proxy: header ${header.toLowerCase()}: ${shown} is not a session id: use 1 to 128 letters, digits and . _ : @ -`
}

/** The conversation's own id: the one named in the header, else a hash of what opens it (and the agent's own id for it, when it sends one). */
const conversationIdOf = (headers: IncomingHttpHeaders, header: string, conversation: Conversation): string => {
  const value = namedId(headers, header)
  if (value !== undefined && SAFE_ID.test(value)) return value
  const hash = createHash("sha256").update(conversation.system).update("\u0000").update(conversation.firstUser)
  if (conversation.agentKey !== undefined) hash.update("\u0000").update(conversation.agentKey)
  return `proxy-${hash.digest("hex").slice(0, 16)}`
}

/**
 * The session a request is judged and stored under. A side request (a summary asked for without
 * tools) goes to a session of its own beside its conversation's, `<id>.side`: stored under the
 * conversation's wire positions, its messages would take the places of the agent's next step.
 */
export const sessionIdOf = (headers: IncomingHttpHeaders, header: string, conversation: Conversation): string => {
  const id = conversationIdOf(headers, header, conversation)
  if (conversation.side !== true) return id
  return id.length <= 123 ? `${id}.side` : `proxy-${createHash("sha256").update(id).digest("hex").slice(0, 16)}.side`
}
