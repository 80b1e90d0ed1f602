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

export const sessionIdOf = (headers: IncomingHttpHeaders, header: string, conversation: Conversation): string => {
  const named = headers[header.toLowerCase()]
  const value = Array.isArray(named) ? named[0] : named
  if (value !== undefined && SAFE_ID.test(value)) return value
  const hash = createHash("sha256").update(conversation.system).update("\u0000").update(conversation.firstUser).digest("hex")
  return `proxy-${hash.slice(0, 16)}`
}
