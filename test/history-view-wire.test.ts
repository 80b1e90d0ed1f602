/**
 * The incremental history view (packages/effect/src/runloop/history-view.ts) sends the same
 * requests as building each one from the whole stored history. One scripted session over HTTP
 * — a reasoning-loop crop, a refusal rolled back, a context overflow compacted and its reply
 * excluded — runs twice: over the memory store, which tells the view what changed since its last
 * read, and over the same store without `changes`, which makes the view read and rebuild the whole
 * history every time (the way requests were built before). The scripted server must receive
 * byte-identical request bodies (compared as the JSON the client sent; key order is kept).
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { layerSqliteStore, RunLoop, SessionStore, makeMemoryStore, type SessionStoreError, type SessionStoreShape, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"


import { it } from "./effect-test.js"
import { tempDir } from "./scoped-resources.js"
import { harness, noRetries } from "./harness.js"

const lister: ToolDefinition = {
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: `${String(input["command"])}:\n` + Array.from({ length: 5 }, (_, i) => `file-${i}.ts`).join("\n"), exitCode: 0 })
}
const LOOPING = "I should list the folder again to be sure"
const overflow: ScriptedResponse = {
  type: "error",
  status: 400,
  body: { error: { message: "This model's maximum context length is 4096 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } }
}
const script = (): Array<ScriptedResponse> => [
  toolCallStream("bash", { command: "ls src" }, { id: "c0", reasoning: LOOPING }),
  toolCallStream("bash", { command: "ls lib" }, { id: "c1", reasoning: LOOPING }),
  toolCallStream("bash", { command: "ls test" }, { id: "c2", reasoning: LOOPING }),
  textStream("I'm sorry, but I can't help with that."),
  toolCallStream("bash", { command: "cat README.md" }, { id: "c3" }),
  toolCallStream("bash", { command: "cat package.json" }, { id: "c4" }),
  toolCallStream("bash", { command: "ls docs" }, { id: "c6" }),
  overflow,
  textStream("SUMMARY: listed src, lib and test; read the README and package.json."),
  toolCallStream("bash", { command: "grep -rn config src" }, { id: "c5" }),
  textStream("The config is read in src/config.ts.")
]

/** The memory store without `changes`: every read of the view is a whole read. */
const wholeReads = Layer.sync(SessionStore, (): SessionStoreShape => {
  const { changes: _, ...store } = makeMemoryStore()
  return store
})

/** One session against `store`; its server is closed when it returns. */
const session = (store: Layer.Layer<SessionStore, SessionStoreError>) =>
  Effect.scoped(Effect.gen(function* () {
    const h = yield* harness(script(), {
      tools: [lister],
      store,
      config: (c) => ({
        ...noRetries(c),
        compaction: { ...c.compaction, keepRecentSteps: 1 },
        loopStreakRecovery: { ...c.loopStreakRecovery, enabled: true, triggerCount: 3 }
      })
    })
    const { result, stored } = yield* h.provide(
      Effect.gen(function* () {
        const result = yield* (yield* RunLoop).run({ sessionId: "w", prompt: "Find where the config is read" })
        return { result, stored: yield* (yield* SessionStore).messages("w") }
      })
    )
    return { result, stored, bodies: h.server.requests.map((q) => JSON.stringify(q.body)) }
  }))

describe("incremental request view on the wire", () => {
  it.live("the same request bodies as rebuilding from the whole history, through a crop, a rollback, a compaction and an exclusion", () => Effect.gen(function* () {
    const incremental = yield* session(SessionStore.layerMemory)
    const rebuilt = yield* session(wholeReads)
    // The session really went through every change that invalidates the view.
    const stored = incremental.stored
    expect(stored.some((m) => m.role === "user" && (m.crops?.length ?? 0) > 0)).toBe(true)
    expect(stored.some((m) => m.role === "assistant" && m.excluded === "rollback")).toBe(true)
    expect(stored.some((m) => m.role === "assistant" && m.excluded === "replayed")).toBe(true)
    expect(stored.some((m) => m.role === "user" && m.synthetic === "compaction")).toBe(true)
    expect(incremental.result.report.reason).toBe("final")
    expect(incremental.bodies).toHaveLength(script().length)
    expect(incremental.bodies).toEqual(rebuilt.bodies)
  }), 30_000)

  it.live("the same over SQLite, whose view is fed from the store's mirror of the rows", () => Effect.gen(function* () {
    const dir = yield* tempDir("lg-wire-")
    const mirrored = yield* session(layerSqliteStore(dir))
    const rebuilt = yield* session(wholeReads)
    expect(mirrored.result.report.reason).toBe("final")
    expect(mirrored.bodies).toEqual(rebuilt.bodies)
  }), 30_000)
})
