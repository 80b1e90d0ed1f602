/**
 * A SessionStore decorator that redacts every message before it is kept: what is on disk (or in
 * a database) never holds the configured secrets or Authorization/Bearer credentials, whatever
 * path a string took to get there. Everything else the store offers (reads, extra methods of a
 * richer store) passes through to the store itself.
 */
import { redactDeep } from "@loopguard/core/try-best"
import type { AssistantMessage } from "@loopguard/core/model"
import type { SessionStoreShape } from "./SessionStore.js"

/** A SessionStore that redacts every message before it is written; everything else passes through. */
export const redactingStore = <S extends SessionStoreShape>(store: S, redact: (text: string) => string): S => {
  // A reply is written again after every tool call with all its parts; the parts that did not
  // change are the same (immutable) objects, so each is redacted once, not once per write: a
  // reply of N calls costs N part redactions instead of N².
  const redactedParts = new WeakMap<object, AssistantMessage["parts"][number]>()
  const redactPart = (part: AssistantMessage["parts"][number]) => {
    let out = redactedParts.get(part)
    if (out === undefined) redactedParts.set(part, (out = redactDeep(part, redact)))
    return out
  }
  const writes: Partial<SessionStoreShape> = {
    append: (sessionId, message) => store.append(sessionId, redactDeep(message, redact)),
    ...(store.appendAll !== undefined ? { appendAll: (sessionId, messages, options) => store.appendAll!(sessionId, messages.map((m) => redactDeep(m, redact)), options) } : {}),
    ...(store.importSession !== undefined
      ? { importSession: (sessionId, messages) => store.importSession!(sessionId, messages.map((m) => redactDeep(m, redact))) }
      : {}),
    putAssistant: (sessionId, message) => {
      const { parts, ...rest } = message
      return store.putAssistant(sessionId, { ...redactDeep(rest, redact), parts: parts.map(redactPart) })
    },
    exclude: (sessionId, messageId, reason) => store.exclude(sessionId, messageId, redactDeep(reason, redact)),
    addCrop: (sessionId, userMessageId, crop) => store.addCrop(sessionId, userMessageId, redactDeep(crop, redact))
  }
  return new Proxy(store, {
    get: (target, property) => {
      if (typeof property === "string" && property in writes) return writes[property as keyof SessionStoreShape]
      const value: unknown = Reflect.get(target, property, target)
      // Bound to the store itself, so a class-based store keeps its private state.
      return typeof value === "function" ? (value as (...args: Array<unknown>) => unknown).bind(target) : value
    }
  })
}
