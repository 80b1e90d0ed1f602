/**
 * A store that refuses a write mid-run (here: the write-ahead record of a tool call) is not a
 * model failure: over HTTP, the server sees no retry, the tool never runs, and RunLoop.run fails
 * with the store's typed error instead of producing a report that pretends the step happened.
 */
import { toolCallStream } from "@loopguard/ai-sdk/testing"
import { makeMemoryStore, RunLoop, SessionStore, SessionStoreError, type ToolDefinition } from "@loopguard/effect"
import { expect } from "bun:test"
import { Effect, Layer } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

it.live("a store write that fails mid-step ends the run with SessionStoreError, unretried, before the tool runs", () => Effect.gen(function* () {
  const memory = makeMemoryStore()
  const refusing = Layer.succeed(SessionStore, {
    ...memory,
    putAssistant: (sessionId, message) =>
      message.parts.some((p) => p.type === "tool" && p.state === "running")
        ? Effect.fail(new SessionStoreError({ reason: "unavailable", sessionId, message: `session ${sessionId}: could not save the reply: database or disk is full` }))
        : memory.putAssistant(sessionId, message)
  })
  let ran = 0
  const tool: ToolDefinition = {
    spec: { name: "bash", description: "run", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async () => {
      ran += 1
      return { state: "completed", output: "ok", exitCode: 0 }
    }
  }
  const h = yield* harness([toolCallStream("bash", { command: "rm -rf build" }, { id: "c1" })], { tools: [tool], store: refusing })
  const outcome = yield* h.provide(Effect.flip(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s", prompt: "clean" }))))
  expect(outcome).toBeInstanceOf(SessionStoreError)
  expect(outcome.message).toBe("session s: could not save the reply: database or disk is full")
  expect(h.server.requests).toHaveLength(1)
  expect(ran).toBe(0)
}), 30_000)
