/**
 * An upstream that answers 200 and then, before any content, an error event ("overloaded", a rate
 * limit) has not answered yet: its error is read out of the first events so the retry policy
 * treats it like the HTTP error it stands for, before any byte reaches the client.
 */
import type { NormalizedError } from "@loopguard/core/model"
import { parseJson, type Protocol } from "./protocol.js"
import { SseSplitter } from "./sse.js"

/** The error a stream's first chunk opens with (before any text, reasoning or call), or null. */
export const errorBeforeContent = (protocol: Protocol, body: unknown, first: Buffer): NormalizedError | null => {
  const watch = protocol.watch(body)
  for (const event of new SseSplitter().push(first)) {
    const seen = watch.see(event)
    if (seen.text !== undefined || seen.reasoning !== undefined || seen.toolCall === true || seen.end === true) return null
    if (seen.error !== true) continue
    const e = parseJson(event.data) ?? {}
    const inner = e.error ?? e.response?.error ?? e
    // The error's own code; an Anthropic error names its kind in `type` ("overloaded_error").
    const code = String(inner?.code ?? (inner !== e ? inner?.type : undefined) ?? "upstream_error")
    return { message: String(inner?.message ?? event.data).slice(0, 500), code, body: event.data, phase: "request" }
  }
  return null
}
