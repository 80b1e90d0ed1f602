/**
 * The session store side of the proxy: each request's conversation is written to its session
 * (the messages the store does not hold yet, in order, under their wire-position ids), so
 * `loopguard sessions` and `audit` read a proxied conversation like any other. Writes of one
 * session run one after another; after each, the write lease is let go, so another replica can
 * write the same conversation's next request. A replica whose write finds the lease still held by
 * the one that served the previous request (its write has not finished yet) waits for it, with a
 * short backoff, instead of dropping the request's messages. What is stored holds none of the
 * request's credentials (its API key, should the conversation quote it), as the CLI's sessions hold
 * none of the configured secrets.
 */
import { toolPartsOf, type AssistantMessage, type Message } from "@loopguard/core/model"
import { makeRedactor } from "@loopguard/core/try-best"
import { describeCause, redactingStore, type SessionStoreError, type SessionStoreShape } from "@loopguard/effect/store"
import { Duration, Effect, Schedule } from "effect"

export interface Recorder {
  /**
   * Queue the write of `messages` to `session`; failures go to `onError`, never to the client.
   * `secrets` (the credentials the request carried) are redacted from what is stored, with the
   * recorder's own (the upstream key, the proxy token) and Authorization/Bearer credentials.
   */
  readonly record: (session: string, messages: ReadonlyArray<Message>, secrets?: ReadonlyArray<string>) => void
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

/** How many times a write re-reads the session after another replica stored some of its messages first. */
const RACES = 3

/**
 * The previous request's reply, now carrying its calls' results: the proxy stored it when it ended,
 * its calls still pending, and the agent sends it back with what they returned under the same id.
 * Only the newest stored reply can have changed so; null when it has no result to add.
 */
const answeredReply = (messages: ReadonlyArray<Message>, held: ReadonlySet<string>): AssistantMessage | null => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role !== "assistant" || !held.has(m.id)) continue
    return toolPartsOf(m).some((p) => p.state === "completed" || p.state === "error") ? m : null
  }
  return null
}

/**
 * `secrets`: always redacted (the upstream key the proxy holds, its token). Each request reads
 * only the session's message ids, and appends what is missing in one write where the store can
 * (`appendAll`), so a request costs the same at step 5 and at step 500.
 */
export const makeRecorder = (store: SessionStoreShape, onError: (message: string) => void, lockedWaitMs: number, secrets: ReadonlyArray<string> = []): Recorder => {
  const queues = new Map<string, Promise<void>>()
  const idsOf = (target: SessionStoreShape, session: string) => target.messageIds?.(session) ?? Effect.map(target.messages(session), (all) => all.map((m) => m.id))
  // Where the store can, the lease is let go in the write itself: one commit, not two.
  const appendInOrder = (target: SessionStoreShape, session: string, messages: ReadonlyArray<Message>) =>
    target.appendAll !== undefined ? target.appendAll(session, messages, { release: true }) : Effect.forEach(messages, (m) => target.append(session, m), { discard: true })
  /**
   * Another replica may store some of these between this write's read and its append: the ids are
   * wire positions of one conversation, so a message stored under its id is this one, and the
   * write reads the ids again and appends what is still missing.
   */
  const appendMissing = (target: SessionStoreShape, session: string, messages: ReadonlyArray<Message>, races = 0): Effect.Effect<void, SessionStoreError> =>
    Effect.gen(function* () {
      const held = new Set(yield* idsOf(target, session))
      const answered = races === 0 ? answeredReply(messages, held) : null
      if (answered !== null) yield* target.putAssistant(session, answered)
      const missing = messages.filter((m) => !held.has(m.id))
      if (missing.length === 0) return
      yield* appendInOrder(target, session, missing).pipe(
        Effect.catchIf((e) => e.reason === "invalid" && races < RACES, () => appendMissing(target, session, messages, races + 1))
      )
    })
  /** `target`: the store seen through this request's redaction. */
  const write = (target: SessionStoreShape, session: string, messages: ReadonlyArray<Message>) =>
    appendMissing(target, session, messages).pipe(
      Effect.ensuring(store.release === undefined ? Effect.void : store.release(session).pipe(Effect.ignore)),
      Effect.retry({ schedule: whileLocked(lockedWaitMs), while: (e) => e.reason === "locked" }),
      // A pooled connection the database dropped (it restarted) fails the first write on it: once
      // more, on a fresh one. A write that committed before failing finds its ids stored and adds none.
      Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 1, while: (e) => e.reason === "unavailable" }),
      Effect.catch((e) => Effect.sync(() => onError(e.message))),
      // The store's own door turns a dying driver into a failure; this one is for any other store a caller passes.
      Effect.catchDefect((defect) => Effect.sync(() => onError(`could not write the session: ${describeCause(defect)}`)))
    )
  return {
    record: (session, messages, requestSecrets = []) => {
      // The secrets differ by request: each gets the store behind its own redaction (redactingStore).
      const target = redactingStore(store, makeRedactor([...secrets, ...requestSecrets]))
      const next = (queues.get(session) ?? Promise.resolve()).then(() => Effect.runPromise(write(target, session, messages))).catch((e: unknown) => onError(`could not write the session: ${describeCause(e)}`))
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
