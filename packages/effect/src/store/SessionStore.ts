/**
 * Where a session's messages live: the one door every runtime, the CLI and the chat go through.
 * Append-only: a reply left out of later requests is marked `excluded`, a crop is a marker on the
 * user message; nothing a run does deletes anything, so an audit or a UI can always show what really
 * happened. Only a person deletes, whole sessions (`loopguard sessions delete` / `prune`: `remove`).
 *
 * Durability contract (docs/store.md): each call is atomic (one transaction in the SQL stores); a
 * reply whose tool is about to run is written ahead with the call `running`, and written again
 * when the call finished; a second writer of one session fails with reason `locked`.
 */
import type { AssistantMessage, CropMarker, ExclusionReason, Message, UserMessage } from "@loopguard/core/model"
import { Context, Effect, Layer } from "effect"
import { SessionStoreError } from "./SessionStoreError.js"
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

/** What `remove` did: the sessions deleted, and those kept because a live writer holds them. */
export interface RemovedSessions {
  readonly removed: ReadonlyArray<string>
  readonly busy: ReadonlyArray<string>
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
  /**
   * The ids of a session's messages, oldest first, without reading the messages: a writer that
   * only needs to know what is stored (the proxy's recorder, every request) pays per message
   * id, not per message. Optional: without it a caller reads `messages`.
   */
  readonly messageIds?: (sessionId: string) => Effect.Effect<ReadonlyArray<string>, SessionStoreError>
  /**
   * Several messages appended in order as one write (one transaction in the SQL stores): all of
   * them, or none when one of their ids is stored already or repeats (reason `invalid`).
   * Optional: without it a caller appends one by one.
   */
  readonly appendAll?: (sessionId: string, messages: ReadonlyArray<Message>, options?: AppendOptions) => Effect.Effect<void, SessionStoreError>
  /** Replace an assistant message by id (parts grow while it streams; tool calls are written ahead). */
  readonly putAssistant: (sessionId: string, message: AssistantMessage) => Effect.Effect<void, SessionStoreError>
  readonly exclude: (sessionId: string, messageId: string, reason: ExclusionReason) => Effect.Effect<void, SessionStoreError>
  readonly addCrop: (sessionId: string, userMessageId: string, crop: CropMarker) => Effect.Effect<void, SessionStoreError>
  /**
   * A whole session written at once (`sessions import`): all of `messages` or, on any failure (the
   * session exists, an id repeats, the disk refuses), none. Optional: without it a caller appends
   * one by one.
   */
  readonly importSession?: (sessionId: string, messages: ReadonlyArray<Message>) => Effect.Effect<void, SessionStoreError>
  /**
   * Give up this writer's lease on a session now (the durable stores; optional): a host that
   * serves one conversation from several processes in turn (the proxy's replicas) lets go after
   * each write, so the next request's process can write it.
   */
  readonly release?: (sessionId: string) => Effect.Effect<void, SessionStoreError>
  /** Every session, most recently written first. */
  readonly list: () => Effect.Effect<ReadonlyArray<SessionSummary>, SessionStoreError>
  /**
   * Deletes the named sessions for good, messages and all, in one transaction (a person's
   * `sessions delete` or `prune`, never a run's): a session whose lease a live writer holds is kept
   * and named in `busy`; an id the store does not hold is in neither. Optional.
   */
  readonly remove?: (sessionIds: ReadonlyArray<string>) => Effect.Effect<RemovedSessions, SessionStoreError>
  /** Where a session is kept, for the run report ("where the work is saved"). */
  readonly location: (sessionId: string) => string
}

/** Why `messages` cannot be imported as `sessionId` (it exists, or an id repeats), or null. */
export const importProblem = (sessionId: string, exists: boolean, messages: ReadonlyArray<Message>): SessionStoreError | null => {
  if (exists) return new SessionStoreError({ reason: "invalid", sessionId, message: `session ${sessionId} already exists; import it under another id` })
  return repeatedIdProblem(sessionId, messages, "nothing was imported")
}

/** The first message of `messages` whose id repeats an earlier one's, as the error that refuses them all; null when none does. */
export const repeatedIdProblem = (sessionId: string, messages: ReadonlyArray<Message>, outcome: string): SessionStoreError | null => {
  const seen = new Set<string>()
  for (const [i, m] of messages.entries()) {
    if (seen.has(m.id)) return new SessionStoreError({ reason: "invalid", sessionId, message: `session ${sessionId}: message #${i} repeats the id ${m.id}; ${outcome}` })
    seen.add(m.id)
  }
  return null
}

/** The error that refuses a write of a message whose id the session already holds. */
export const storedAlready = (sessionId: string, messageId: string): SessionStoreError =>
  new SessionStoreError({ reason: "invalid", sessionId, message: `session ${sessionId}: a message with id ${messageId} is already stored` })

export interface AppendOptions {
  /**
   * Let go of this writer's lease on the session in the same write (`release` after it, in one
   * transaction and one commit): for a host that serves a conversation from several processes in
   * turn (the proxy's replicas). A store without leases ignores it.
   */
  readonly release?: boolean
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
    messageIds: (sessionId) => Effect.sync(() => (sessions.get(sessionId)?.journal.messages ?? []).map((m) => m.id)),
    appendAll: (sessionId, messages) =>
      Effect.suspend(() => {
        const held = sessions.get(sessionId)?.journal
        const taken = held === undefined ? undefined : messages.find((m) => held.has(m.id))
        if (taken !== undefined) return Effect.fail(storedAlready(sessionId, taken.id))
        const problem = repeatedIdProblem(sessionId, messages, "nothing was appended")
        if (problem !== null) return Effect.fail(problem)
        const journal = get(sessionId)
        for (const m of messages) journal.append(m)
        return Effect.void
      }),
    putAssistant: (sessionId, message) => Effect.sync(() => get(sessionId).put(message)),
    exclude: (sessionId, messageId, reason) =>
      Effect.sync(() => get(sessionId).modify(messageId, (m) => (m.role === "assistant" ? { ...m, excluded: reason } : m))),
    addCrop: (sessionId, userMessageId, crop) =>
      Effect.sync(() =>
        get(sessionId).modify(userMessageId, (m) =>
          m.role === "user" ? ({ ...m, crops: [...(m.crops ?? []), crop] } satisfies UserMessage) : m
        )
      ),
    importSession: (sessionId, messages) =>
      Effect.suspend(() => {
        const problem = importProblem(sessionId, (sessions.get(sessionId)?.journal.messages.length ?? 0) > 0, messages)
        if (problem !== null) return Effect.fail(problem)
        const journal = get(sessionId)
        for (const m of messages) journal.append(m)
        return Effect.void
      }),
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
      ),
    remove: (sessionIds) =>
      Effect.sync(() => ({ removed: [...new Set(sessionIds)].filter((id) => sessions.delete(id)), busy: [] }))
  }
}

/** Where a session's messages are kept: append-only, exclusions and crops recorded as markers, never deletions. */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("loopguard/SessionStore") {
  static readonly layerMemory = Layer.sync(SessionStore, makeMemoryStore)
}
