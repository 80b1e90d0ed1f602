/** The in-memory store's `remove`: what the durable stores do (store-suite.fixture.ts), without leases. */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { makeMemoryStore } from "./SessionStore.js"

test("remove deletes the named sessions whole and names only those it held", async () => {
  const store = makeMemoryStore()
  await Effect.runPromise(
    Effect.gen(function* () {
      yield* store.append("a", { role: "user", id: "u0", text: "hi" })
      yield* store.append("b", { role: "user", id: "u0", text: "hi" })
      expect(yield* store.remove!(["a", "missing", "a"])).toEqual({ removed: ["a"], busy: [] })
      expect((yield* store.list()).map((s) => s.id)).toEqual(["b"])
      expect(yield* store.messages("a")).toEqual([])
    })
  )
})
