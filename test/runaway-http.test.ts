/**
 * Near-exact runaway generations over real HTTP (scripted OpenAI-compatible server, the AI SDK
 * provider, the SessionProcessor): the long-period rule cuts them whether they arrive as text
 * in tiny deltas or as reasoning in a few huge ones, and the server sees the request closed.
 * Judged from outside: the outcome, what was kept, and what the server saw.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { SessionProcessor, SessionStore } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const processOnce = Effect.gen(function* () {
  const processor = yield* SessionProcessor
  const store = yield* SessionStore
  yield* store.append("s", { role: "user", id: "u0", text: "go" })
  return yield* processor.process({
    sessionId: "s",
    parentId: "u0",
    step: 0,
    request: { messages: [{ role: "user", text: "go" }], tools: [] },
    messageId: (n) => `a${n}`
  })
})

const PARAGRAPH =
  "Let me look at the failing assertion once more: the parser returns the nested rows in the wrong order because the header cells are merged, so I will rerun the formatter tests and compare the fixture."

describe("near-exact runaways over HTTP", () => {
  it.live("a paragraph whose attempt counter goes up, in 3-character text deltas: cut within 5 copies", () => Effect.gen(function* () {
    const copies = Array.from({ length: 300 }, (_, i) => `Attempt ${i + 2}. ${PARAGRAPH}\n\n`)
    const h = yield* harness([textStream(copies.join(""), { chunkSize: 3, chunkDelayMs: 1 })])
    const r = yield* h.provide(processOnce)
    expect(r.outcome.type).toBe("text-repeat")
    if (r.outcome.type !== "text-repeat") return
    expect(r.outcome.trip.rule).toBe("long")
    expect(textOf(r.message).split("compare the fixture.").length - 1).toBeLessThanOrEqual(5)
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }), 30_000)

  it.live("a short counter line ×1000 as reasoning in 1 000-character deltas: cut within 6 000 characters", () => Effect.gen(function* () {
    const lines = Array.from({ length: 1_000 }, (_, i) => `Step ${i + 17}: check the value again.\n`).join("")
    const h = yield* harness([textStream("Done.", { chunkSize: 1_000, reasoning: lines, chunkDelayMs: 2 })])
    const r = yield* h.provide(processOnce)
    expect(r.outcome.type).toBe("text-repeat")
    if (r.outcome.type !== "text-repeat") return
    expect(r.outcome.trip.rule).toBe("long")
    if (r.outcome.trip.rule === "long") expect(r.outcome.trip.char).toBeLessThan(6_000)
    yield* Effect.promise(() => h.server.requests[0]!.done)
    expect(h.server.requests[0]!.closedEarly).toBe(true)
  }), 30_000)
})
