import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "@loopguard/core/model"
import { makeRedactor } from "@loopguard/core/try-best"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeSqliteStore } from "./durable.js"
import { redactingStore } from "./redacting-store.js"
import { makeMemoryStore } from "./SessionStore.js"

const KEY = "store-secret-key-424242"
const redact = makeRedactor([KEY])

describe("redactingStore", () => {
  test("what reaches the database file holds no secret; reads and location pass through", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* Effect.acquireRelease(
            Effect.sync(() => mkdtempSync(join(tmpdir(), "lg-redact-store-"))),
            (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
          )
          const messages = yield* Effect.scoped(
            Effect.gen(function* () {
              const store = redactingStore(yield* makeSqliteStore(dir), redact)
              yield* store.append("s", { role: "user", id: "u1", text: `my key is ${KEY}, Authorization: Bearer abc.def-123` })
              // Several at once (the proxy's recorder writes this way) go through the same redaction.
              yield* store.appendAll!("s", [{ role: "user", id: "u2", text: `again ${KEY}` }, { role: "user", id: "u3", text: "Authorization: Bearer zz9.batch-77" }])
              expect(yield* store.messageIds!("s")).toEqual(["u1", "u2", "u3"])
              expect(store.location("s")).toContain(join(dir, "sessions.db"))
              return yield* store.messages("s")
            })
          )
          expect(messages).toHaveLength(3)
          // Closed: the WAL is checkpointed into the one file, read here byte for byte.
          const file = readFileSync(join(dir, "sessions.db")).toString("latin1")
          expect(file).not.toContain(KEY)
          expect(file).not.toContain("abc.def-123")
          expect(file).not.toContain("zz9.batch-77")
          expect(file).toContain("again [REDACTED]")
          expect(file).toContain("my key is [REDACTED]")
        })
      )
    ))

  test("a class-based store keeps its methods and private state behind the decorator", async () => {
    class CountingStore {
      readonly #inner = makeMemoryStore()
      #writes = 0
      messages = (id: string) => this.#inner.messages(id)
      append(id: string, m: Parameters<typeof this.inner.append>[1]) {
        this.#writes += 1
        return this.#inner.append(id, m)
      }
      get inner() {
        return this.#inner
      }
      putAssistant = (id: string, m: Parameters<typeof this.inner.putAssistant>[1]) => this.#inner.putAssistant(id, m)
      exclude = (id: string, mid: string, r: Parameters<typeof this.inner.exclude>[2]) => this.#inner.exclude(id, mid, r)
      addCrop = (id: string, u: string, c: Parameters<typeof this.inner.addCrop>[2]) => this.#inner.addCrop(id, u, c)
      list = () => this.#inner.list()
      location = (id: string) => `memory:${id}`
      writes() {
        return this.#writes
      }
    }
    const store = redactingStore(new CountingStore(), redact)
    await Effect.runPromise(store.append("s", { role: "user", id: "u1", text: KEY }))
    expect(store.writes()).toBe(1)
    expect(await Effect.runPromise(store.messages("s"))).toEqual([{ role: "user", id: "u1", text: "[REDACTED]" }])
  })
})

test("a reply rewritten after each of its N tool calls is redacted part by part once, not N² times", async () => {
  let calls = 0
  const counting = (text: string) => {
    calls += 1
    return redact(text)
  }
  const store = redactingStore(makeMemoryStore(), counting)
  const n = 400
  const parts: Array<AssistantMessage["parts"][number]> = []
  await Effect.runPromise(
    Effect.gen(function* () {
      for (let i = 0; i < n; i++) {
        // As the reply builder does: earlier parts are the same objects, the new one is new.
        parts.push({ type: "tool", callId: `c${i}`, name: "bash", input: { command: `echo ${i} ${KEY}` }, state: "completed", output: `out ${i}` })
        yield* store.putAssistant("s", { role: "assistant", id: "a1", parentId: "u0", step: 0, parts: [...parts], finish: "tool-calls" })
      }
    })
  )
  // Each part holds a few strings: linear in N (the reply's own fields and the new part each write: about 10 N), where redacting every write whole took about 3 N².
  expect(calls).toBeLessThan(20 * n)
  const [stored] = await Effect.runPromise(store.messages("s"))
  expect(JSON.stringify(stored)).not.toContain(KEY)
  expect((stored as AssistantMessage).parts).toHaveLength(n)
})
