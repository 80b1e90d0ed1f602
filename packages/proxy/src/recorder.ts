/**
 * The session store side of the proxy: each request's conversation is written to its session
 * (the messages the store does not hold yet, in order, under their wire-position ids), so
 * `loopguard sessions` and `audit` read a proxied conversation like any other. Writes of one
 * session run one after another; after each, the write lease is let go, so another replica can
 * write the same conversation's next request.
 */
import type { Message } from "@loopguard/core/model"
import type { SessionStoreShape } from "@loopguard/effect/store"
import { Effect } from "effect"

export interface Recorder {
  /** Queue the write of `messages` to `session`; failures go to `onError`, never to the client. */
  readonly record: (session: string, messages: ReadonlyArray<Message>) => void
  /** Resolves when every queued write has finished. */
  readonly idle: () => Promise<void>
}

export const makeRecorder = (store: SessionStoreShape, onError: (message: string) => void): Recorder => {
  const queues = new Map<string, Promise<void>>()
  const write = (session: string, messages: ReadonlyArray<Message>) =>
    Effect.gen(function* () {
      const held = new Set((yield* store.messages(session)).map((m) => m.id))
      for (const m of messages) if (!held.has(m.id)) yield* store.append(session, m)
    }).pipe(
      Effect.ensuring(store.release === undefined ? Effect.void : store.release(session).pipe(Effect.ignore)),
      Effect.catch((e) => Effect.sync(() => onError(e.message)))
    )
  return {
    record: (session, messages) => {
      const next = (queues.get(session) ?? Promise.resolve()).then(() => Effect.runPromise(write(session, messages)))
      queues.set(session, next)
      void next.finally(() => {
        if (queues.get(session) === next) queues.delete(session)
      })
    },
    idle: async () => {
      while (queues.size > 0) await Promise.all([...queues.values()])
    }
  }
}
