/**
 * Where a session's messages live: the one door every runtime, the CLI and the chat go through.
 * Append-only: a reply left out of later requests is marked `excluded`, a crop is a marker on the
 * user message; nothing is ever deleted, so an audit or a UI can always show what really happened.
 *
 * Durability contract (docs/store.md): each call is atomic (one transaction in the SQL stores); a
 * reply whose tool is about to run is written ahead with the call `running`, and written again
 * when the call finished; a second writer of one session fails with reason `locked`.
 */
import type { AssistantMessage, CropMarker, ExclusionReason, Message, UserMessage } from "@loopguard/core/model"
import { Context, Effect, Layer } from "effect"
import type { SessionStoreError } from "./SessionStoreError.js"

export interface SessionSummary {
  readonly id: string
  readonly messages: number
  /** Assistant replies (steps), retried attempts included. */
  readonly steps: number
  /** Epoch milliseconds of the last write. */
  readonly updatedAt: number
  /** Who holds the write lease now (`host:pid`), or null when nobody does. */
  readonly writer: string | null
}

export interface SessionStoreShape {
  readonly messages: (sessionId: string) => Effect.Effect<ReadonlyArray<Message>, SessionStoreError>
  readonly append: (sessionId: string, message: Message) => Effect.Effect<void, SessionStoreError>
  /** Replace an assistant message by id (parts grow while it streams; tool calls are written ahead). */
  readonly putAssistant: (sessionId: string, message: AssistantMessage) => Effect.Effect<void, SessionStoreError>
  readonly exclude: (sessionId: string, messageId: string, reason: ExclusionReason) => Effect.Effect<void, SessionStoreError>
  readonly addCrop: (sessionId: string, userMessageId: string, crop: CropMarker) => Effect.Effect<void, SessionStoreError>
  /** Every session, most recently written first. */
  readonly list: () => Effect.Effect<ReadonlyArray<SessionSummary>, SessionStoreError>
  /** Where a session is kept, for the run report ("where the work is saved"). */
  readonly location: (sessionId: string) => string
}

/** Searched from the newest: the message being replaced is nearly always the last one, so a step costs the same in a long session. */
const lastIndexOfId = (messages: ReadonlyArray<Message>, id: string): number => {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i
  return -1
}

/** An in-memory session store (append-only, per process). */
export const makeMemoryStore = (): SessionStoreShape => {
  const sessions = new Map<string, { messages: Array<Message>; updatedAt: number }>()
  const get = (id: string) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { messages: [], updatedAt: Date.now() }))
    s.updatedAt = Date.now()
    return s.messages
  }
  const replace = (sessionId: string, id: string, f: (m: Message) => Message) => {
    const s = get(sessionId)
    const i = lastIndexOfId(s, id)
    if (i >= 0) s[i] = f(s[i]!)
  }
  return {
    location: (sessionId) => `in memory only (session ${sessionId})`,
    messages: (sessionId) => Effect.sync(() => (sessions.get(sessionId)?.messages ?? []).slice()),
    append: (sessionId, message) => Effect.sync(() => void get(sessionId).push(message)),
    putAssistant: (sessionId, message) =>
      Effect.sync(() => {
        const s = get(sessionId)
        const i = lastIndexOfId(s, message.id)
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
      ),
    list: () =>
      Effect.sync(() =>
        [...sessions.entries()]
          .map(([id, s]) => ({
            id,
            messages: s.messages.length,
            steps: s.messages.filter((m) => m.role === "assistant").length,
            updatedAt: s.updatedAt,
            writer: null
          }))
          .sort((a, b) => b.updatedAt - a.updatedAt)
      )
  }
}

/** Where a session's messages are kept: append-only, exclusions and crops recorded as markers, never deletions. */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("loopguard/SessionStore") {
  static readonly layerMemory = Layer.sync(SessionStore, makeMemoryStore)
}
