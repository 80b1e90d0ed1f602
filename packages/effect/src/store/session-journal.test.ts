import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeMemoryStore } from "./SessionStore.js"
import { SessionJournal } from "./session-journal.js"
import { checkChanges } from "./store-suite.fixture.js"

describe("SessionJournal", () => {
  test("since a cursor: only the places written since, each once, in place order; another journal's cursor starts again", () => {
    const j = new SessionJournal([{ role: "user", id: "u0", text: "task" }])
    const first = j.since(null)
    expect(first.reset).toBe(true)
    expect(first.changed.map((c) => c.index)).toEqual([0])
    j.append({ role: "user", id: "u1", text: "more" })
    j.put({ role: "assistant", id: "a2", parentId: "u1", step: 0, parts: [] })
    j.put({ role: "assistant", id: "a2", parentId: "u1", step: 0, parts: [], finish: "stop" })
    j.modify("u0", (m) => ({ ...m, text: "changed" }))
    const next = j.since(first.cursor)
    expect(next.reset).toBe(false)
    expect(next.changed.map((c) => [c.index, c.message.id])).toEqual([[0, "u0"], [1, "u1"], [2, "a2"]])
    expect(next.length).toBe(3)
    expect(j.since(next.cursor).changed).toEqual([])
    expect(new SessionJournal().since(next.cursor).reset).toBe(true)
  })

  test("the memory store's changes rebuild what messages() returns", () => {
    const store = makeMemoryStore()
    return Effect.runPromise(checkChanges(store, store, false))
  })
})
