/**
 * Tool calls a model wrote as text (MCP-XML, `<tool_call>` JSON, a bare JSON call), found with
 * core's parser: taken only when they name a tool the request offered and their arguments are
 * whole as written (repaired or cut-off arguments are never passed on as a call). All or nothing:
 * when one call the model asked for cannot be passed on (not whole, a tool the request did not
 * offer, a `<tool_call>` cut off before its name), none is, since the others may depend on it, as
 * with structured calls. Calls the reply only shows (quoted, fenced amid prose, called an example,
 * inside its thinking) were never asked for: they stay text and do not hold back the real ones.
 */
import { findTextToolCalls } from "@loopguard/core/toolcall"
import { randomUUID } from "node:crypto"
import type { TextCall } from "./protocol.js"

export const textCallsIn = (text: string, offered: ReadonlyArray<string>): { readonly calls: ReadonlyArray<TextCall>; readonly prose: string } => {
  const found = findTextToolCalls(text, new Set(offered))
  const whole = found.calls.filter((c) => c.argumentsValid && !c.argumentsRepaired)
  const askedButUnfit = found.skipped.some((s) => s.reason !== "quoted" && s.reason !== "thinking")
  if (whole.length === 0 || whole.length !== found.calls.length || askedButUnfit) return { calls: [], prose: text }
  return { calls: whole.map((c) => ({ name: c.name, arguments: c.arguments as Readonly<Record<string, unknown>> })), prose: found.prose.trim() }
}

/**
 * Ids for the calls the proxy makes out of one reply's text: a tag drawn for that reply, then the
 * call's place, so they stay unique across a conversation's turns as a provider's own ids do.
 */
export const textCallIds = (): ((prefix: string, n: number) => string) => {
  const tag = randomUUID().replaceAll("-", "").slice(0, 12)
  return (prefix, n) => `${prefix}_${tag}_${n}`
}
