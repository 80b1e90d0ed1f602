/**
 * Which conversation a request belongs to: the id the agent names in a header, else a hash of
 * the system prompt and the first user message (the same on every request of a conversation,
 * and on every replica).
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

export const sessionIdOf = (headers: IncomingHttpHeaders, header: string, conversation: Conversation): string => {
  const value = namedId(headers, header)
  if (value !== undefined && SAFE_ID.test(value)) return value
  const hash = createHash("sha256").update(conversation.system).update("\u0000").update(conversation.firstUser).digest("hex")
  return `proxy-${hash.slice(0, 16)}`
}
