/**
 * Over HTTP: the reasoning-loop crops stay stored, but with
 * `loopStreakRecovery.enabled` off the model sees the full history again. Judged from the
 * request the scripted server received.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore } from "@loopguard/effect"
import { replyKey } from "@loopguard/core/loops"
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const looped = (id: string, n: number): AssistantMessage => ({
  role: "assistant",
  id,
  parentId: "c:u0",
  step: n,
  finish: "stop",
  parts: [{ type: "reasoning", text: "I should check the config again" }, { type: "text", text: `looped reply ${id}` }]
})

/** A session whose first turn stored a crop over three looping replies. */
const history: ReadonlyArray<Message> = [
  { role: "user", id: "c:u0", text: "Fix the build", crops: [{ from: "c:a1", to: "c:a3", key: replyKey(looped("c:a1", 1)), truncated: false }] },
  { ...looped("c:a0", 0), parts: [{ type: "text", text: "anchor reply c:a0" }] },
  looped("c:a1", 1),
  looped("c:a2", 2),
  looped("c:a3", 3)
]

const nextTurn = Effect.gen(function* () {
  const store = yield* SessionStore
  for (const m of history) yield* store.append("c", m)
  const result = yield* (yield* RunLoop).run({ sessionId: "c", prompt: "Go on" })
  return { result, stored: yield* store.messages("c") }
})

const sentText = (h: { server: { requests: Array<{ body: any }> } }) => JSON.stringify(h.server.requests[0]!.body.messages)

describe("loopStreakRecovery.enabled off restores the full view", () => {
  it.live("on: the stored crop keeps the looping replies out of the request", () => Effect.gen(function* () {
    const h = yield* harness([textStream("Done.")], { config: (c) => ({ ...c, loopStreakRecovery: { ...c.loopStreakRecovery, enabled: true } }) })
    yield* h.provide(nextTurn)
    expect(sentText(h)).toContain("anchor reply c:a0")
    expect(sentText(h)).not.toContain("looped reply")
  }), 30_000)

  it.live("off: the same stored crop is ignored and every reply is sent again", () => Effect.gen(function* () {
    const h = yield* harness([textStream("Done.")], { config: (c) => ({ ...c, loopStreakRecovery: { ...c.loopStreakRecovery, enabled: false } }) })
    const { stored } = yield* h.provide(nextTurn)
    for (const id of ["c:a1", "c:a2", "c:a3"]) expect(sentText(h)).toContain(`looped reply ${id}`)
    expect(stored[0]).toMatchObject({ crops: [{ from: "c:a1", to: "c:a3" }] })
  }), 30_000)
})
