import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { decide } from "./decision.js"
import { MAX_BODY_CHARS, MAX_CAUSE_DEPTH, normalizeError } from "./normalize.js"

/** Shaped like the AI SDK's APICallError (core cannot import `ai`). */
class FakeAPICallError extends Error {
  override readonly name = "AI_APICallError"
  constructor(
    message: string,
    readonly fields: {
      statusCode?: number
      responseHeaders?: Record<string, string>
      responseBody?: string
      isRetryable?: boolean
      data?: unknown
      cause?: unknown
    }
  ) {
    super(message, { cause: fields.cause })
    Object.assign(this, fields)
  }
}

describe("normalizeError: AI SDK errors", () => {
  test("APICallError fields map onto NormalizedError", () => {
    const e = new FakeAPICallError("Rate limit reached", {
      statusCode: 429,
      responseHeaders: { "Retry-After": "3", "x-request-id": "abc" },
      responseBody: '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}',
      isRetryable: true,
      data: { error: { message: "Rate limit reached", code: "rate_limit_exceeded" } }
    })
    expect(normalizeError(e)).toEqual({
      message: "Rate limit reached",
      name: "AI_APICallError",
      status: 429,
      headers: { "retry-after": "3", "x-request-id": "abc" },
      code: "rate_limit_exceeded",
      body: '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}',
      isRetryable: true
    })
  })

  test("code comes from the body when data is absent; Google's numeric code gives way to status text", () => {
    const e = new FakeAPICallError("", {
      statusCode: 429,
      responseBody: '{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}'
    })
    const n = normalizeError(e)
    expect(n.code).toBe("RESOURCE_EXHAUSTED")
    expect(n.message).toBe("Resource has been exhausted")
  })

  test("a message that is only the status's phrase gives way to the body's words: vLLM's and Mistral's { object: \"error\" } too", () => {
    const vllm = new FakeAPICallError("Bad Request", {
      statusCode: 400,
      responseBody: '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","code":400}'
    })
    expect(normalizeError(vllm).message).toBe("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.")
    const openai = new FakeAPICallError("Bad Request", { statusCode: 400, responseBody: '{"error":{"message":"Invalid tool schema"}}' })
    expect(normalizeError(openai).message).toBe("Invalid tool schema")
    // A message of the SDK's own is kept.
    const own = new FakeAPICallError("Rate limit reached for gpt-x", { statusCode: 429, responseBody: '{"object":"error","message":"other words"}' })
    expect(normalizeError(own).message).toBe("Rate limit reached for gpt-x")
  })

  test("mid-stream reset: status 200 with the cause chain kept outermost first", () => {
    const e = new FakeAPICallError("Cannot connect to API: terminated", {
      statusCode: 200,
      isRetryable: true,
      cause: Object.assign(new TypeError("terminated"), {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" })
      })
    })
    const n = normalizeError(e)
    expect(n.status).toBe(200)
    expect(n.causes).toEqual(["terminated", "other side closed", "UND_ERR_SOCKET"])
    expect(decide(n).kind).toBe("network")
  })

  test("an error stream part and a provider stream-error chunk are unwrapped", () => {
    const inner = new FakeAPICallError("Service Unavailable", { statusCode: 503, isRetryable: true })
    expect(normalizeError({ type: "error", error: inner })).toMatchObject({ status: 503, message: "Service Unavailable" })
    const chunk = { error: { message: "The server is overloaded", type: "server_error", code: "server_is_overloaded" } }
    expect(normalizeError(chunk)).toMatchObject({ message: "The server is overloaded", code: "server_is_overloaded" })
  })

  test("a provider stream error with a numeric code and a type", () => {
    const e = { message: "upstream broke", type: "upstream_error", code: 502, isRetryable: true, data: {} }
    expect(normalizeError(e)).toMatchObject({ code: "upstream_error", isRetryable: true })
  })

  test("fetch Headers are read and lower-cased", () => {
    const headers = new Headers({ "Retry-After-Ms": "900" })
    expect(normalizeError({ message: "x", responseHeaders: headers }).headers).toEqual({ "retry-after-ms": "900" })
  })
})

describe("normalizeError: plain errors", () => {
  test("fetch failed with a system error cause", () => {
    const e = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }) })
    const n = normalizeError(e)
    expect(n).toMatchObject({ name: "TypeError", message: "fetch failed" })
    expect(n.causes).toEqual(["connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"])
  })

  test("AbortError by name, by DOMException, and in the cause chain", () => {
    expect(normalizeError(new DOMException("The operation was aborted.", "AbortError")).aborted).toBe(true)
    expect(normalizeError({ name: "AbortError", message: "aborted" }).aborted).toBe(true)
    expect(normalizeError(new Error("wrapped", { cause: { name: "AbortError", message: "x" } })).aborted).toBe(true)
    expect(normalizeError(new Error("plain")).aborted).toBeUndefined()
  })

  test("a timeout is not a user abort", () => {
    expect(normalizeError(new DOMException("signal timed out", "TimeoutError")).aborted).toBeUndefined()
  })

  test("the cause chain stops at depth 8 and on cycles", () => {
    let chain: Record<string, unknown> = { message: "c-last" }
    for (let i = 20; i >= 1; i--) chain = { message: `c${i}`, cause: chain }
    const n = normalizeError({ message: "top", cause: chain })
    expect(n.causes).toHaveLength(MAX_CAUSE_DEPTH)
    expect(n.causes?.[0]).toBe("c1")

    const a: Record<string, unknown> = { message: "a" }
    const b: Record<string, unknown> = { message: "b", cause: a }
    a["cause"] = b
    expect(normalizeError({ message: "top", cause: a }).causes).toEqual(["a", "b"])
  })

  test("long bodies are truncated", () => {
    const n = normalizeError({ message: "x", statusCode: 500, responseBody: "y".repeat(MAX_BODY_CHARS + 500) })
    expect(n.body).toHaveLength(MAX_BODY_CHARS)
  })
})

describe("normalizeError: anything", () => {
  test("strings, empties and primitives", () => {
    expect(normalizeError("socket hang up")).toEqual({ message: "socket hang up" })
    expect(normalizeError("").message).toBe("Unknown error")
    expect(normalizeError(null).message).toBe("Unknown error")
    expect(normalizeError(undefined).message).toBe("Unknown error")
    expect(normalizeError(42).message).toBe("42")
    expect(normalizeError(Symbol("s")).message).toBe("Symbol(s)")
  })

  test("hostile objects do not make it throw", () => {
    const hostile = new Proxy({}, { get: () => { throw new Error("no") }, ownKeys: () => { throw new Error("no") } })
    expect(() => normalizeError(hostile)).not.toThrow()
    expect(typeof normalizeError(hostile).message).toBe("string")
    const badToString = { toString: () => { throw new Error("no") }, get message(): string { throw new Error("no") } }
    expect(normalizeError(badToString).message).toBe("Unknown error")
  })

  test("normalizing twice changes nothing", () => {
    const e = new FakeAPICallError("Cannot connect", { statusCode: 200, isRetryable: true, cause: { message: "terminated", name: "AbortError" } })
    const once = normalizeError(e)
    expect(normalizeError(once)).toEqual(once)
  })

  test("never throws and always yields a non-empty message (property)", () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (u) => {
        const n = normalizeError(u)
        return typeof n.message === "string" && n.message.length > 0
      })
    )
  })
})
