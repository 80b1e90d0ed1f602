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
import { SessionJournal, type SessionChanges, type StoreCursor } from "./session-journal.js"

export type { SessionChanges, StoreCursor } from "./session-journal.js"

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
  /** A copy of the whole session, oldest first. */
  readonly messages: (sessionId: string) => Effect.Effect<ReadonlyArray<Message>, SessionStoreError>
  /**
   * What was appended or replaced since `cursor` (null: everything), for a reader that comes back
   * every step (the RunLoop's history view): its cost follows the changes, not the session's
   * length. Optional: a store without it is read whole with `messages` instead.
   */
  readonly changes?: (sessionId: string, cursor: StoreCursor | null) => Effect.Effect<SessionChanges, SessionStoreError>
  readonly append: (sessionId: string, message: Message) => Effect.Effect<void, SessionStoreError>
  /** Replace an assistant message by id (parts grow while it streams; tool calls are written ahead). */
  readonly putAssistant: (sessionId: string, message: AssistantMessage) => Effect.Effect<void, SessionStoreError>
  readonly exclude: (sessionId: string, messageId: string, reason: ExclusionReason) => Effect.Effect<void, SessionStoreError>
  readonly addCrop: (sessionId: string, userMessageId: string, crop: CropMarker) => Effect.Effect<void, SessionStoreError>
  /**
   * Give up this writer's lease on a session now (the durable stores; optional): a host that
   * serves one conversation from several processes in turn (the proxy's replicas) lets go after
   * each write, so the next request's process can write it.
   */
  readonly release?: (sessionId: string) => Effect.Effect<void, SessionStoreError>
  /** Every session, most recently written first. */
  readonly list: () => Effect.Effect<ReadonlyArray<SessionSummary>, SessionStoreError>
  /** Where a session is kept, for the run report ("where the work is saved"). */
  readonly location: (sessionId: string) => string
}

/** An in-memory session store (append-only, per process). */
export const makeMemoryStore = (): SessionStoreShape => {
  const sessions = new Map<string, { journal: SessionJournal; updatedAt: number }>()
  const get = (id: string) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { journal: new SessionJournal(), updatedAt: Date.now() }))
    s.updatedAt = Date.now()
    return s.journal
  }
  return {
    location: (sessionId) => `in memory only (session ${sessionId})`,
    messages: (sessionId) => Effect.sync(() => (sessions.get(sessionId)?.journal.messages ?? []).slice()),
    changes: (sessionId, cursor) => Effect.sync(() => (sessions.get(sessionId)?.journal ?? new SessionJournal()).since(cursor)),
    append: (sessionId, message) => Effect.sync(() => get(sessionId).append(message)),
    putAssistant: (sessionId, message) => Effect.sync(() => get(sessionId).put(message)),
    exclude: (sessionId, messageId, reason) =>
      Effect.sync(() => get(sessionId).modify(messageId, (m) => (m.role === "assistant" ? { ...m, excluded: reason } : m))),
    addCrop: (sessionId, userMessageId, crop) =>
      Effect.sync(() =>
        get(sessionId).modify(userMessageId, (m) =>
          m.role === "user" ? ({ ...m, crops: [...(m.crops ?? []), crop] } satisfies UserMessage) : m
        )
      ),
    list: () =>
      Effect.sync(() =>
        [...sessions.entries()]
          .map(([id, s]) => ({
            id,
            messages: s.journal.messages.length,
            steps: s.journal.messages.filter((m) => m.role === "assistant").length,
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
