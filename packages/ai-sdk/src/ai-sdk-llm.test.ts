import { describe, expect, test } from "bun:test"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Cause, Effect, Exit, Stream } from "effect"
import { LlmError } from "@loopguard/effect"
import { makeAiSdkLlm } from "./ai-sdk-llm.js"
import { scriptedChatModel } from "./testing.js"

/** A server that takes the request and never answers: not even the response headers. */
const silentServer = async () => {
  const held: Array<ServerResponse> = []
  let closedByClient = 0
  const server = createServer((req, res) => {
    held.push(res)
    req.socket.on("close", () => void closedByClient++)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    modelId: "silent",
    closedByClient: () => closedByClient,
    requests: () => held.length,
    close: () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

describe("makeAiSdkLlm: a response that never starts", () => {
  test("waiting for the response headers counts against the chunk timeout, and the request is then closed", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Effect.acquireRelease(Effect.promise(silentServer), (s) => Effect.promise(() => s.close()))
          const llm = makeAiSdkLlm({ model: scriptedChatModel(server), providerId: "silent", modelId: "silent" })
          expect(llm.timesChunks).toBe(true)
          const started = Date.now()
          const exit = yield* Effect.exit(Stream.runCollect(llm.stream({ messages: [{ role: "user", text: "go" }], tools: [], chunkTimeoutMs: 150 })))
          expect(Date.now() - started).toBeGreaterThanOrEqual(140)
          expect(Exit.isFailure(exit)).toBe(true)
          const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          expect(error).toBeInstanceOf(LlmError)
          expect((error as LlmError).error.name).toBe("ChunkTimeoutError")
          expect(server.requests()).toBe(1)
          // The abort reaches the socket: the server sees the client go away.
          for (let i = 0; i < 100 && server.closedByClient() === 0; i++) yield* Effect.sleep("10 millis")
          expect(server.closedByClient()).toBe(1)
        })
      )
    )
  })
})
