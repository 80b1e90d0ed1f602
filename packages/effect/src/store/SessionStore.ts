/**
 * Where a session's messages live. Append-only: a reply left out of later requests is marked
 * `excluded`, a crop is a marker on the user message; nothing is ever deleted, so an audit or a
 * UI can always show what really happened.
 */
import type { AssistantMessage, CropMarker, ExclusionReason, Message, UserMessage } from "@loopguard/core/model"
import { Context, Effect, Layer } from "effect"

export interface SessionStoreShape {
  readonly messages: (sessionId: string) => Effect.Effect<ReadonlyArray<Message>>
  readonly append: (sessionId: string, message: Message) => Effect.Effect<void>
  /** Replace an assistant message by id (parts grow while it streams). */
  readonly putAssistant: (sessionId: string, message: AssistantMessage) => Effect.Effect<void>
  readonly exclude: (sessionId: string, messageId: string, reason: ExclusionReason) => Effect.Effect<void>
  readonly addCrop: (sessionId: string, userMessageId: string, crop: CropMarker) => Effect.Effect<void>
  /** Where a session is kept, for the run report ("where the work is saved"). */
  readonly location: (sessionId: string) => string
}

/** An in-memory session store (append-only, per process). */
export const makeMemoryStore = (): SessionStoreShape => {
  const sessions = new Map<string, Array<Message>>()
  const get = (id: string) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = []))
    return s
  }
  const replace = (sessionId: string, id: string, f: (m: Message) => Message) => {
    const s = get(sessionId)
    const i = s.findIndex((m) => m.id === id)
    if (i >= 0) s[i] = f(s[i]!)
  }
  return {
    location: (sessionId) => `in memory only (session ${sessionId})`,
    messages: (sessionId) => Effect.sync(() => get(sessionId).slice()),
    append: (sessionId, message) => Effect.sync(() => void get(sessionId).push(message)),
    putAssistant: (sessionId, message) =>
      Effect.sync(() => {
        const s = get(sessionId)
        const i = s.findIndex((m) => m.id === message.id)
        if (i >= 0) s[i] = message
        else s.push(message)
      }),
    exclude: (sessionId, messageId, reason) =>
      Effect.sync(() => replace(sessionId, messageId, (m) => (m.role === "assistant" ? { ...m, excluded: reason } : m))),
    addCrop: (sessionId, userMessageId, crop) =>
      Effect.sync(() =>
        replace(sessionId, userMessageId, (m) =>
          m.role === "user" ? ({ ...m, crops: [...(m.crops ?? []), crop] } satisfies UserMessage) : m
        )
      )
  }
}

/** Where a session's messages are kept: append-only, exclusions and crops recorded as markers, never deletions. */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("loopguard/SessionStore") {
  static readonly layerMemory = Layer.sync(SessionStore, makeMemoryStore)
}
