import { describe, expect, test } from "bun:test"
import { APICallError } from "ai"
import { collectGenerateResult } from "./collect.js"
import type { StreamPart, StreamResult } from "./model-types.js"

const streamOf = (parts: ReadonlyArray<unknown>): StreamResult =>
  ({ stream: new ReadableStream<StreamPart>({ start: (c) => { for (const p of parts) c.enqueue(p as StreamPart); c.close() } }) }) as StreamResult

const thrownBy = (error: unknown) => collectGenerateResult(streamOf([{ type: "text-delta", id: "t", delta: "Let me" }, { type: "error", error }])).then(() => null, (e: unknown) => e)

describe("collectGenerateResult", () => {
  test("a provider's error object becomes the API call error it reports: its words, its status, retryable when it says so", async () => {
    const overloaded = (await thrownBy({ message: "Overloaded", type: "overloaded_error", statusCode: 529, isRetryable: true })) as APICallError
    expect(APICallError.isInstance(overloaded)).toBe(true)
    expect([overloaded.message, overloaded.statusCode, overloaded.isRetryable]).toEqual(["Overloaded", 529, true])
    const nested = (await thrownBy({ error: { message: "quota exceeded" } })) as APICallError
    expect([nested.message, nested.isRetryable]).toEqual(["quota exceeded", false])
    expect(((await thrownBy("socket hang up")) as Error).message).toBe("socket hang up")
  })

  test("an Error is thrown as it is", async () => {
    const own = new TypeError("bad chunk")
    expect(await thrownBy(own)).toBe(own)
  })
})
