import type { AssistantMessage, Message } from "@loopguard/core/model"
import { makeMemoryStore, SessionStoreError, type SessionStoreShape } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeRecorder } from "./recorder.js"

const user = (id: string, text: string): Message => ({ id, role: "user", text })

const refusal = (session: string, reason: "locked" | "unavailable") => new SessionStoreError({ reason, sessionId: session, message: `session ${session}: held by another writer` })

/** A memory store whose first `lockedTimes` writes are refused as another replica's lease would be. */
const heldElsewhere = (lockedTimes: number, reason: "locked" | "unavailable" = "locked") => {
  const inner = makeMemoryStore()
  let refused = 0
  const refuseOr = <A>(write: Effect.Effect<A, SessionStoreError>, session: string) =>
    Effect.suspend(() => {
      if (refused >= lockedTimes) return write
      refused++
      return Effect.fail(refusal(session, reason))
    })
  const store: SessionStoreShape = {
    ...inner,
    append: (session, message) => refuseOr(inner.append(session, message), session),
    appendAll: (session, messages) => refuseOr(inner.appendAll!(session, messages), session)
  }
  return { store, inner, refusals: () => refused }
}

const idsIn = async (store: SessionStoreShape, session: string) => (await Effect.runPromise(store.messages(session))).map((m) => m.id)

describe("the proxy's recorder", () => {
  test("what is stored holds no foreign credential the conversation quotes, in any well-known format", async () => {
    const store = makeMemoryStore()
    const recorder = makeRecorder(store, () => {}, 1_000)
    const quoted = [
      "sk-ant-api03-FOREIGNab12cd34ef56gh78ij90kl12mn34op56",
      "sk-proj-REPLYKEY9876543210zyxwvuZYXWVU",
      "AKIAIOSFODNN7EXAMPLQ",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "hunter2pass",
      "XAPIKEYVALUEabc123xyz789",
      "abcdefghijklmnopqrstuvwxyzABCDEF"
    ]
    const text = `ANTHROPIC=${quoted[0]} reply ${quoted[1]} aws ${quoted[2]} export GITHUB=${quoted[3]}
db postgres://admin:${quoted[4]}@db.internal:5432/app
curl -H "x-api-key: ${quoted[5]}" https://api.example.com
Bearer ${quoted[6]}`
    recorder.record("s", [user("u0", text)])
    await recorder.idle()
    const stored = JSON.stringify(await Effect.runPromise(store.messages("s")))
    for (const secret of quoted) expect(stored).not.toContain(secret)
    expect(stored).toContain("postgres://admin:[REDACTED]@db.internal")
  })

  test("a write that finds the lease held elsewhere waits and writes every message", async () => {
    const { store, inner, refusals } = heldElsewhere(3)
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 5_000)
    recorder.record("s", [user("u0", "a"), user("u1", "b")])
    await recorder.idle()
    expect(refusals()).toBe(3)
    expect(errors).toEqual([])
    expect(await idsIn(inner, "s")).toEqual(["u0", "u1"])
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

  test("an unavailable store is tried once more (a connection it dropped), then reported; not waited on as a lease is", async () => {
    const { store, refusals } = heldElsewhere(Number.POSITIVE_INFINITY, "unavailable")
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 60_000)
    recorder.record("s", [user("u0", "a")])
    await recorder.idle()
    expect(refusals()).toBe(2)
    expect(errors.length).toBe(1)
    // Once: the write after a database restart goes through on the second try.
    const once = heldElsewhere(1, "unavailable")
    const quiet: Array<string> = []
    const again = makeRecorder(once.store, (m) => quiet.push(m), 60_000)
    again.record("s", [user("u0", "a")])
    await again.idle()
    expect([quiet, await idsIn(once.inner, "s")]).toEqual([[], ["u0"]])
  })

  test("a store whose driver dies mid-write (a database restarted under load) is one reported line; the next write goes on", async () => {
    const inner = makeMemoryStore()
    let dies = 1
    const store: SessionStoreShape = {
      ...inner,
      appendAll: (session, messages) => Effect.suspend(() => (dies-- > 0 ? Effect.die(new Error("PgConnection: Connection closed")) : inner.appendAll!(session, messages)))
    }
    const errors: Array<string> = []
    const unhandled: Array<unknown> = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      const recorder = makeRecorder(store, (m) => errors.push(m), 60_000)
      recorder.record("s", [user("u0", "a")])
      recorder.record("s", [user("u0", "a"), user("u1", "b")])
      await recorder.idle()
      await new Promise((resolve) => setTimeout(resolve, 10))
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
    expect(unhandled).toEqual([])
    expect(errors).toEqual(["could not write the session: PgConnection: Connection closed"])
    expect(await idsIn(inner, "s")).toEqual(["u0", "u1"])
  })

  test("a reply stored with its calls pending gets their results when the next request carries them", async () => {
    const store = makeMemoryStore()
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 60_000)
    const call = (state: "pending" | "completed", output?: string): AssistantMessage => ({
      role: "assistant", id: "m1", parentId: "m0", step: 0, finish: "tool-calls",
      parts: [{ type: "tool", callId: "c1", name: "bash", input: { command: "ls" }, state, ...(output !== undefined ? { output } : {}) }]
    })
    recorder.record("s", [user("m0", "list"), call("pending")])
    recorder.record("s", [user("m0", "list"), call("completed", "a.txt")])
    await recorder.idle()
    const stored = await Effect.runPromise(store.messages("s"))
    expect(errors).toEqual([])
    expect(stored.map((m) => m.id)).toEqual(["m0", "m1"])
    expect((stored[1] as AssistantMessage).parts).toMatchObject([{ state: "completed", output: "a.txt" }])
  })

  test("each request reads the session's ids, never its messages, and appends what is new in one write", async () => {
    const inner = makeMemoryStore()
    const calls: Array<string> = []
    const store: SessionStoreShape = {
      ...inner,
      messages: (session) => (calls.push("messages"), inner.messages(session)),
      messageIds: (session) => (calls.push("messageIds"), inner.messageIds!(session)),
      append: (session, message) => (calls.push("append"), inner.append(session, message)),
      appendAll: (session, messages) => (calls.push(`appendAll ${messages.map((m) => m.id).join(",")}`), inner.appendAll!(session, messages))
    }
    const recorder = makeRecorder(store, () => {}, 1_000)
    recorder.record("s", [user("u0", "a"), user("a1", "b")])
    recorder.record("s", [user("u0", "a"), user("a1", "b"), user("u2", "c"), user("a3", "d")])
    await recorder.idle()
    expect(calls).toEqual(["messageIds", "appendAll u0,a1", "messageIds", "appendAll u2,a3"])
    expect(await idsIn(inner, "s")).toEqual(["u0", "a1", "u2", "a3"])
  })

  test("what is stored holds neither the recorder's secrets nor the request's credentials nor a Bearer token", async () => {
    const store = makeMemoryStore()
    const recorder = makeRecorder(store, () => {}, 1_000, ["upstream-key-0123456789"])
    recorder.record(
      "s",
      [
        user("u0", "printenv says OPENAI_API_KEY=sk-client-key-abcdef123456 and UPSTREAM=upstream-key-0123456789"),
        { role: "assistant", id: "a1", parentId: "u0", step: 0, finish: "stop", parts: [{ type: "text", text: "curl -H 'Authorization: Bearer tok.en-987654321' …" }] }
      ],
      ["sk-client-key-abcdef123456"]
    )
    await recorder.idle()
    const kept = JSON.stringify(await Effect.runPromise(store.messages("s")))
    for (const secret of ["sk-client-key-abcdef123456", "upstream-key-0123456789", "tok.en-987654321"]) expect(kept).not.toContain(secret)
    expect(kept).toContain("OPENAI_API_KEY=[REDACTED]")
  })
})

describe("the proxy's recorder, two replicas on one conversation", () => {
  /** A memory store that refuses an id stored once, as the durable stores do. */
  const refusingRepeats = () => {
    const inner = makeMemoryStore()
    const appendOnce = (session: string, message: Message) =>
      Effect.flatMap(inner.messageIds!(session), (now) =>
        now.includes(message.id)
          ? Effect.fail(new SessionStoreError({ reason: "invalid", sessionId: session, message: `a message with id ${message.id} is already stored` }))
          : inner.append(session, message)
      )
    return { inner, appendOnce }
  }

  /** u0, u1, u2 recorded while the other replica stores u1 first: all three kept, u1 once, and no error. */
  const expectRaceSurvived = async (store: SessionStoreShape, inner: SessionStoreShape) => {
    const errors: Array<string> = []
    const recorder = makeRecorder(store, (m) => errors.push(m), 1_000)
    recorder.record("s", [user("u0", "a"), user("u1", "b"), user("u2", "c")])
    await recorder.idle()
    expect(errors).toEqual([])
    expect(await idsIn(inner, "s")).toEqual(["u1", "u0", "u2"])
  }

  test("one write: a message another replica stored after this write read the ids is skipped, the rest written", async () => {
    const { inner } = refusingRepeats()
    let raced = false
    const store: SessionStoreShape = {
      ...inner,
      appendAll: (session, messages) =>
        Effect.suspend(() => {
          // The other replica stores u1 between this write's read and its append.
          if (raced) return inner.appendAll!(session, messages)
          raced = true
          return Effect.andThen(inner.append(session, user("u1", "b")), inner.appendAll!(session, messages))
        })
    }
    await expectRaceSurvived(store, inner)
  })

  test("a store that appends one by one: the same, message by message", async () => {
    const { inner, appendOnce } = refusingRepeats()
    let raced = false
    const { messageIds: _ids, appendAll: _all, ...oneByOne } = inner
    const store: SessionStoreShape = {
      ...oneByOne,
      append: (session, message) =>
        Effect.suspend(() => {
          if (raced) return appendOnce(session, message)
          raced = true
          return Effect.andThen(appendOnce(session, user("u1", "b")), appendOnce(session, message))
        })
    }
    await expectRaceSurvived(store, inner)
  })
})
