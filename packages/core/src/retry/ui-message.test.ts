import { describe, expect, test } from "bun:test"
import { uiMessageOf } from "./ui-message.js"

describe("a failure in words for people", () => {
  test("one sentence per kind, saying what to do", () => {
    expect(uiMessageOf({ message: "Incorrect API key provided", status: 401 })).toContain("check the API key")
    expect(uiMessageOf({ message: "This model's maximum context length is 8192 tokens", status: 400, code: "context_length_exceeded" })).toBe(
      "The conversation no longer fits the model's context window."
    )
    expect(uiMessageOf({ message: "You exceeded your current quota", status: 429, code: "insufficient_quota" })).toContain("run out of quota")
    expect(uiMessageOf({ message: "fetch failed", causes: ["connect ECONNREFUSED 127.0.0.1:9"] })).toContain("Could not reach the endpoint (fetch failed)")
    expect(uiMessageOf({ message: "upstream crashed", status: 500 })).toContain("server kept failing (HTTP 500)")
    expect(uiMessageOf({ message: "no such model", status: 404 })).toContain("check the base URL and the model id")
    expect(uiMessageOf({ message: "Too Many Requests", status: 429 })).toContain("too many requests")
  })

  test("a stream whose chunk is not JSON could not be read; it did not break off", () => {
    const parse = uiMessageOf({ name: "AI_JSONParseError", message: "JSON parsing failed: Text: {not json.\nError message: SyntaxError: JSON Parse error" })
    expect(parse).toStartWith("The reply could not be read: ")
    expect(parse).not.toContain("breaking off")
    expect(uiMessageOf({ message: "stream_read_error: upstream closed", code: "stream_read_error" })).toContain("kept breaking off")
  })

  test("an unknown failure quotes the message, cut short", () => {
    const m = uiMessageOf({ message: "x".repeat(1000) })
    expect(m).toStartWith("The model request failed: ")
    expect(m.length).toBeLessThan(200)
  })
})
