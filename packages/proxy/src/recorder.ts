/**
 * The session store side of the proxy: each request's conversation is written to its session
 * (the messages the store does not hold yet, in order, under their wire-position ids), so
 * `loopguard sessions` and `audit` read a proxied conversation like any other. Writes of one
 * session run one after another; after each, the write lease is let go, so another replica can
 * write the same conversation's next request. A replica whose write finds the lease still held by
 * the one that served the previous request (its write has not finished yet) waits for it, with a
 * short backoff, instead of dropping the request's messages.
 */
import type { Message } from "@loopguard/core/model"
import type { SessionStoreError, SessionStoreShape } from "@loopguard/effect/store"
import { Duration, Effect, Schedule } from "effect"

export interface Recorder {
  /** Queue the write of `messages` to `session`; failures go to `onError`, never to the client. */
  readonly record: (session: string, messages: ReadonlyArray<Message>) => void
  /** Resolves when every queued write has finished. */
  readonly idle: () => Promise<void>
}

/**
 * 20 ms doubling to 1 s between tries, for at most `waitMs` in all. The proxy passes the store's
 * lease length: by then the holder has either let go or its lease has expired.
 */
const whileLocked = (waitMs: number) =>
  Schedule.exponential("20 millis").pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.seconds(1)))),
    Schedule.upTo({ duration: Duration.millis(waitMs) })
  )

export const makeRecorder = (store: SessionStoreShape, onError: (message: string) => void, lockedWaitMs: number): Recorder => {
  const queues = new Map<string, Promise<void>>()
  // Another replica may store the same message between this write's read and its append: the
  // ids are wire positions of one conversation, so a message stored under its id is this one.
  const storedMeanwhile = (session: string, m: Message) => (e: SessionStoreError) =>
    Effect.flatMap(store.messages(session), (now) => (now.some((x) => x.id === m.id) ? Effect.void : Effect.fail(e)))
  const attempt = (session: string, messages: ReadonlyArray<Message>) =>
    Effect.gen(function* () {
      const held = new Set((yield* store.messages(session)).map((m) => m.id))
      for (const m of messages) if (!held.has(m.id)) yield* store.append(session, m).pipe(Effect.catchIf((e) => e.reason === "invalid", storedMeanwhile(session, m)))
    }).pipe(Effect.ensuring(store.release === undefined ? Effect.void : store.release(session).pipe(Effect.ignore)))
  const write = (session: string, messages: ReadonlyArray<Message>) =>
    attempt(session, messages).pipe(
      Effect.retry({ schedule: whileLocked(lockedWaitMs), while: (e) => e.reason === "locked" }),
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
