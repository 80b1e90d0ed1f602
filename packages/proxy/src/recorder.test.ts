import type { Message } from "@loopguard/core/model"
import { makeMemoryStore, SessionStoreError, type SessionStoreShape } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeRecorder } from "./recorder.js"

const user = (id: string, text: string): Message => ({ id, role: "user", text })

/** A memory store whose first `lockedTimes` appends are refused as another replica's lease would be. */
const heldElsewhere = (lockedTimes: number, reason: "locked" | "unavailable" = "locked") => {
  const inner = makeMemoryStore()
  let refused = 0
  const store: SessionStoreShape = {
    ...inner,
    append: (session, message) =>
      Effect.suspend(() => {
        if (refused >= lockedTimes) return inner.append(session, message)
        refused++
        return Effect.fail(new SessionStoreError({ reason, sessionId: session, message: `session ${session}: held by another writer` }))
      })
  }
  return { store, inner, refusals: () => refused }
}

describe("the proxy's recorder", () => {
  test("a write that finds the lease held elsewhere waits and writes every message", async () => {
    const { store, inner, refusals } = heldElsewhere(3)
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 5_000)
    recorder.record("s", [user("u0", "a"), user("u1", "b")])
    await recorder.idle()
    expect(refusals()).toBe(3)
    expect(errors).toEqual([])
    expect((await Effect.runPromise(inner.messages("s"))).map((m) => m.id)).toEqual(["u0", "u1"])
  })

  test("a lease never let go within the wait is reported, not thrown, and the queue drains", async () => {
    const { store, inner } = heldElsewhere(Number.POSITIVE_INFINITY)
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 200)
    const started = Date.now()
    recorder.record("s", [user("u0", "a")])
    await recorder.idle()
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(errors).toEqual(["session s: held by another writer"])
    expect(await Effect.runPromise(inner.messages("s"))).toEqual([])
  })

  test("other store failures are not waited on", async () => {
    const { store, refusals } = heldElsewhere(Number.POSITIVE_INFINITY, "unavailable")
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 60_000)
    recorder.record("s", [user("u0", "a")])
    await recorder.idle()
    expect(refusals()).toBe(1)
    expect(errors.length).toBe(1)
  })
})

describe("the proxy's recorder, two replicas on one conversation", () => {
  test("a message another replica stored after this write read the session is skipped, the rest written", async () => {
    const inner = makeMemoryStore()
    // Like the durable stores: an id stored once is refused after.
    const appendOnce = (session: string, message: Message) =>
      Effect.flatMap(inner.messages(session), (now) =>
        now.some((m) => m.id === message.id)
          ? Effect.fail(new SessionStoreError({ reason: "invalid", sessionId: session, message: `a message with id ${message.id} is already stored` }))
          : inner.append(session, message)
      )
    let raced = false
    const store: SessionStoreShape = {
      ...inner,
      append: (session, message) =>
        Effect.suspend(() => {
          // The other replica stores u1 between this write's read and its first append.
          if (raced) return appendOnce(session, message)
          raced = true
          return Effect.andThen(appendOnce(session, user("u1", "b")), appendOnce(session, message))
        })
    }
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 1_000)
    recorder.record("s", [user("u0", "a"), user("u1", "b"), user("u2", "c")])
    await recorder.idle()
    expect(errors).toEqual([])
    expect((await Effect.runPromise(inner.messages("s"))).map((m) => m.id)).toEqual(["u1", "u0", "u2"])
  })
})
