import { describe, expect, test } from "bun:test"
import type { NormalizedError } from "../model/stream.js"
import { decide } from "./decision.js"
import { isOverloaded, isPrefillRejection } from "./special-cases.js"
import { normalizeError } from "./normalize.js"

const err = (e: Partial<NormalizedError>): NormalizedError => ({ message: "boom", ...e })

describe("decide: terminal", () => {
  test("user abort is terminal even when the provider calls it retryable", () => {
    const d = decide(err({ aborted: true, isRetryable: true, status: 503 }))
    expect(d).toMatchObject({ retryable: false, kind: "terminal" })
    expect(d.reason).toContain("abort")
  })

  test.each([400, 401, 402, 403, 404, 422, 501, 505])("HTTP %d is terminal", (status) => {
    const d = decide(err({ status, isRetryable: true }))
    expect(d.retryable).toBe(false)
    expect(d.kind).toBe("terminal")
    expect(d.reason).toContain(String(status))
  })

  test("context overflow is terminal whatever the status or retryable flag", () => {
    for (const e of [
      err({ status: 400, code: "context_length_exceeded" }),
      err({ message: "This model's maximum context length is 128000 tokens", isRetryable: true }),
      err({ status: 500, body: '{"error":{"message":"prompt is too long: 210000 tokens"}}' })
    ]) {
      expect(decide(e)).toMatchObject({ retryable: false, kind: "terminal", reason: "context overflow" })
    }
  })

  test("quota or credits exhausted is terminal, even on 429", () => {
    for (const e of [
      err({ status: 429, code: "insufficient_quota", message: "You exceeded your current quota, please check your plan" }),
      err({ code: "quota_exhausted" }),
      err({ code: "CREDITS_EXHAUSTED", isRetryable: true }),
      err({ status: 400, message: "Your credit balance is too low to access the API" })
    ]) {
      expect(decide(e)).toMatchObject({ retryable: false, kind: "terminal", reason: "quota or credits exhausted" })
    }
  })

  test("authentication failure without a status is terminal", () => {
    expect(decide(err({ code: "invalid_api_key", isRetryable: true })).kind).toBe("terminal")
  })

  test("anything unrecognised is terminal", () => {
    expect(decide(err({ message: "something odd happened" }))).toMatchObject({ retryable: false, kind: "terminal" })
    expect(decide(err({ status: 409 })).kind).toBe("terminal")
    expect(decide(err({ status: 413, isRetryable: false })).kind).toBe("terminal")
  })

  test("a terminal decision carries no server delay even with retry-after", () => {
    const d = decide(err({ status: 401, headers: { "retry-after": "5" } }))
    expect(d.serverDelayMs).toBeUndefined()
  })
})

describe("decide: network", () => {
  test.each([
    ["code ECONNRESET", err({ code: "ECONNRESET" })],
    ["code ETIMEDOUT", err({ code: "ETIMEDOUT" })],
    ["code ECONNREFUSED", err({ code: "ECONNREFUSED" })],
    ["code EPIPE", err({ code: "EPIPE" })],
    ["Bun ConnectionRefused", err({ code: "ConnectionRefused" })],
    ["fetch failed message", err({ name: "TypeError", message: "fetch failed" })],
    ["socket hang up message", err({ message: "socket hang up" })],
    ["terminated in the cause chain", err({ message: "Cannot connect to API", causes: ["terminated", "other side closed"] })],
    ["undici code deep in causes", err({ message: "x", causes: ["a", "b", "UND_ERR_SOCKET"] })]
  ])("%s", (_label, e) => {
    expect(decide(e)).toMatchObject({ retryable: true, kind: "network" })
  })

  test("a mid-stream reset (APICallError, status 200, cause terminated) is network, not terminal", () => {
    const thrown = Object.assign(new Error("Cannot connect to API: terminated"), {
      name: "AI_APICallError",
      statusCode: 200,
      isRetryable: true,
      cause: Object.assign(new TypeError("terminated"), {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" })
      })
    })
    expect(decide(normalizeError(thrown), { phase: "stream" })).toMatchObject({ retryable: true, kind: "network" })
  })

  test("the same reset on Bun (cause ECONNRESET) is network", () => {
    const thrown = { name: "AI_APICallError", message: "Cannot connect to API", statusCode: 200, cause: { code: "ECONNRESET", message: "read failed" } }
    expect(decide(normalizeError(thrown)).kind).toBe("network")
  })

  test("network words must be whole words", () => {
    expect(decide(err({ message: "the outcome is predetermined" })).kind).toBe("terminal")
    expect(decide(err({ message: "the recipepipe module" })).kind).toBe("terminal")
  })

  test("with an HTTP error status the status decides, not network words in the text", () => {
    expect(decide(err({ status: 400, message: "upstream said ECONNRESET" })).kind).toBe("terminal")
    expect(decide(err({ status: 502, message: "upstream connect error: connection reset" })).kind).toBe("server")
  })
})

describe("decide: rate limit, server, stream, unknown", () => {
  test("429 is rate_limit and reads retry-after", () => {
    const d = decide(err({ status: 429, headers: { "retry-after": "7" } }))
    expect(d).toMatchObject({ retryable: true, kind: "rate_limit", serverDelayMs: 7000 })
  })

  test("too_many_requests code and rate-limit text are rate_limit", () => {
    expect(decide(err({ code: "too_many_requests" })).kind).toBe("rate_limit")
    expect(decide(err({ message: "Rate limit reached for gpt-4o on requests per min" })).kind).toBe("rate_limit")
  })

  test.each([408, 425, 500, 502, 503, 504, 529])("HTTP %d is server", (status) => {
    expect(decide(err({ status }))).toMatchObject({ retryable: true, kind: "server" })
  })

  test("codes containing exhausted or unavailable are server (unless quota/credits)", () => {
    expect(decide(err({ code: "RESOURCE_EXHAUSTED" })).kind).toBe("server")
    expect(decide(err({ code: "service_unavailable" })).kind).toBe("server")
    expect(decide(err({ code: "server_is_overloaded", status: 200 })).kind).toBe("server")
  })

  test("upstream stream read failures are stream", () => {
    expect(decide(err({ code: "stream_read_error" })).kind).toBe("stream")
    expect(decide(err({ code: "upstream_error", status: 200 })).kind).toBe("stream")
  })

  test("provider says retryable but nothing else fits: unknown", () => {
    expect(decide(err({ status: 409, isRetryable: true }))).toMatchObject({ retryable: true, kind: "unknown" })
    expect(decide(err({ message: "weird", isRetryable: true })).kind).toBe("unknown")
  })
})

describe("decide: phase and scope", () => {
  test("defaults: request phase and scope; stream phase gives live-step", () => {
    expect(decide(err({ status: 500 }))).toMatchObject({ phase: "request", scope: "request" })
    expect(decide(err({ status: 500, phase: "stream" }))).toMatchObject({ phase: "stream", scope: "live-step" })
  })

  test("the context overrides the error's phase and sets the scope", () => {
    const d = decide(err({ status: 500, phase: "request" }), { phase: "stream", scope: "max-judge" })
    expect(d).toMatchObject({ phase: "stream", scope: "max-judge" })
  })

  test("an HTTP-date hint is measured against the given clock", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:27:50 GMT")
    const d = decide(err({ status: 503, headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } }), { now })
    expect(d.serverDelayMs).toBe(10_000)
  })
})

describe("isOverloaded / isPrefillRejection", () => {
  test("server_is_overloaded in code, message or body", () => {
    expect(isOverloaded(err({ code: "server_is_overloaded" }))).toBe(true)
    expect(isOverloaded(err({ body: '{"error":{"code":"server_is_overloaded"}}' }))).toBe(true)
    expect(isOverloaded(err({ code: "overloaded_error" }))).toBe(false)
    expect(isOverloaded(err({ status: 503 }))).toBe(false)
  })

  test("prefill rejection phrases, case-insensitive, in message or body", () => {
    expect(isPrefillRejection(err({ status: 400, message: "This model does not support assistant message prefill." }))).toBe(true)
    expect(isPrefillRejection(err({ status: 400, body: '{"error":"Conversation must end with a user message"}' }))).toBe(true)
    expect(isPrefillRejection(err({ status: 400, body: '{"object":"error","message":"Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant","type":"invalid_request_message_order","code":3230}' }))).toBe(true)
    expect(isPrefillRejection(err({ status: 400, message: "Invalid request: unknown field" }))).toBe(false)
  })
})

describe("decide: unreadable stream chunks", () => {
  test("a chunk the SDK could not parse is a stream failure, retryable", () => {
    const d = decide({ message: "JSON parsing failed: Text: {not json.", name: "AI_JSONParseError", phase: "stream" })
    expect(d).toMatchObject({ retryable: true, kind: "stream" })
  })
  test("the same name on an HTTP failure is judged by its status", () => {
    expect(decide({ message: "bad", name: "AI_JSONParseError", status: 400 }).kind).toBe("terminal")
  })
  test("a rejected prompt (our own bug) stays terminal", () => {
    expect(decide({ message: "Invalid prompt", name: "AI_InvalidPromptError" }).kind).toBe("terminal")
  })
})

describe("decide with an adapter's retryableStatuses", () => {
  test("a listed status is a retryable server error; unlisted stays terminal; an abort stays terminal", () => {
    const notFound: NormalizedError = { message: "model is loading", status: 404 }
    expect(decide(notFound)).toMatchObject({ retryable: false, kind: "terminal" })
    expect(decide(notFound, { retryableStatuses: [404] })).toMatchObject({ retryable: true, kind: "server" })
    expect(decide({ message: "bad", status: 400 }, { retryableStatuses: [404] }).retryable).toBe(false)
    expect(decide({ ...notFound, aborted: true }, { retryableStatuses: [404] }).retryable).toBe(false)
  })
})
