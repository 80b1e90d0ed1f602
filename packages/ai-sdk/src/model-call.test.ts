import { describe, expect, test } from "bun:test"
import { Cause, Effect, Exit, Stream } from "effect"
import type { StreamPart } from "@loopguard/core/model"
import { batchedStream } from "./batched-source.js"
import { makePartMapper } from "./map-stream.js"
import { openModelCall, singleCall, type ModelCallInput, type SingleCall } from "./model-call.js"
import { normalizeProviderError } from "./http/response-limits.js"
import { toToolSet } from "./messages.js"
import { scriptedChatModel, startScriptedServer, textStream, toolCallStream, type ScriptedProvider, type ScriptedResponse, type ScriptedServer } from "./testing.js"

/** Each reply a provider may give, named; every one is played to both ways of calling the model. */
const replies: ReadonlyArray<readonly [string, ScriptedResponse]> = [
  ["text with reasoning and usage", textStream("Hello there, this is a reply.", { reasoning: "thinking first", chunkSize: 5, usage: { prompt_tokens: 7, completion_tokens: 9 } })],
  ["a tool call in three pieces", toolCallStream("bash", { command: "ls -la" }, { pieces: 3, text: "Let me look." })],
  ["a call to a tool nobody offered", toolCallStream("rm_everything", { path: "/" })],
  ["cut-off tool arguments", toolCallStream("bash", '{"command": "rm -rf /tmp/x', { finish: "length" })],
  ["a finish of length", textStream("runaway", { finish: "length" })],
  ["a content filter", textStream("no", { finish: "content_filter" })],
  ["a stream with no finish reason", { type: "stream", chunks: [{ text: "half" }], finish: null }],
  ["a 429 with retry-after", { type: "error", status: 429, headers: { "retry-after": "3" } }],
  ["a 500", { type: "error", status: 500 }],
  ["a 200 that is not an event stream", { type: "error", status: 200, body: "<html>gateway</html>", headers: { "content-type": "text/html" } }],
  ["a reset before any byte", { type: "reset" }],
  ["a reset mid-stream", { ...textStream("one two three four five six", { chunkSize: 4 }), resetAfterChunks: 2 }],
  ["a malformed event", { type: "stream", chunks: [{ text: "a" }, { raw: "{not json" }, { text: "b" }] }],
  ["an error object mid-stream", { type: "stream", chunks: [{ text: "a" }, { raw: JSON.stringify({ error: { message: "overloaded", type: "server_error" } }) }] }]
]

interface Outcome {
  readonly parts: ReadonlyArray<StreamPart>
  readonly failure: unknown
}

/** The two calls are made a moment apart: a response's Date header may differ. */
const withoutDates = (outcome: Outcome): Outcome => JSON.parse(JSON.stringify(outcome, (key, value: unknown) => (key === "date" ? undefined : value)))

/** What loopguard's LLM stream yields for one call: the mapped parts, and the error it failed with, if any. */
const play = async (server: ScriptedServer, provider: ScriptedProvider, call: SingleCall | null): Promise<Outcome> => {
  const input: ModelCallInput = {
    model: scriptedChatModel(server, provider),
    messages: [{ role: "user", content: "go" }],
    instructions: "be brief",
    tools: toToolSet([{ name: "bash", description: "Run a shell command", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }]),
    maxOutputTokens: 500,
    abortSignal: new AbortController().signal
  }
  const parts = batchedStream(openModelCall(input, call), normalizeProviderError).pipe(
    Stream.map(makePartMapper()),
    Stream.filter((p): p is StreamPart => p !== null)
  )
  const seen: Array<StreamPart> = []
  const exit = await Effect.runPromiseExit(Stream.runForEach(parts, (p) => Effect.sync(() => void seen.push(p))))
  return withoutDates({ parts: seen, failure: Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined })
}

describe("one model call: the SDK's single-call primitive and the streamText fallback yield the same parts", () => {
  test("this version of ai has the single-call primitive (else every step takes the slower fallback)", () => {
    expect(singleCall()).not.toBeNull()
  })

  const cases = (["openai-compatible", "openai"] as const).flatMap((provider) => replies.map(([name, reply]) => [name, provider, reply] as const))
  test.each(cases)("%s (%s provider)", (_name, provider, reply) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Effect.acquireRelease(Effect.promise(() => startScriptedServer([reply, reply])), (s) => Effect.promise(() => s.close()))
          const direct = yield* Effect.promise(() => play(server, provider, singleCall()))
          const fallback = yield* Effect.promise(() => play(server, provider, null))
          expect(direct).toEqual(fallback)
          expect(direct.parts.length + (direct.failure === undefined ? 0 : 1)).toBeGreaterThan(0)
          // The same request went out: instructions, tools, messages and settings, with the same headers.
          expect(server.requests.map((r) => r.body)).toEqual([server.requests[1]!.body, server.requests[0]!.body])
          expect(server.requests[0]!.headers).toEqual(server.requests[1]!.headers)
          expect(JSON.stringify(server.requests[0]!.body)).toContain("be brief")
        })
      )
    ))
})
