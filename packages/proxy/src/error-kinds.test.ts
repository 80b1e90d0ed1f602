import { describe, expect, test } from "bun:test"
import { parseJson } from "./protocol.js"
import { chatProtocol } from "./protocols/chat.js"
import { geminiProtocol } from "./protocols/gemini.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"

const firstData = (events: string): any => parseJson(events.split("\n").find((l) => l.startsWith("data: "))!.slice("data: ".length))

describe("an error event written once the stream began names the upstream's kind of failure", () => {
  test("a refused key, a bad request, a rate limit, an overload, and no status at all", () => {
    expect(firstData(chatProtocol.streamError("m", { status: 401 })).error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" })
    expect(firstData(chatProtocol.streamError("m", { status: 400 })).error).toMatchObject({ type: "invalid_request_error", code: null })
    expect(firstData(chatProtocol.streamError("m")).error).toMatchObject({ type: "server_error", code: "upstream_error" })
    // A broken connection keeps its code: a client retries it as the broken connection itself (Qwen Code does only then).
    expect(firstData(chatProtocol.streamError("m", { code: "ECONNRESET" })).error).toMatchObject({ type: "server_error", code: "ECONNRESET" })
    expect(firstData(messagesProtocol.streamError("m", { status: 401 })).error.type).toBe("authentication_error")
    expect(firstData(messagesProtocol.streamError("m", { status: 529 })).error.type).toBe("overloaded_error")
    expect(firstData(messagesProtocol.streamError("m", { status: 429 })).error.type).toBe("rate_limit_error")
    expect(firstData(messagesProtocol.streamError("m")).error.type).toBe("api_error")
    expect(firstData(responsesProtocol.streamError("m", { status: 401 })).code).toBe("invalid_api_key")
    expect(firstData(responsesProtocol.streamError("m", { status: 400 })).code).toBe("invalid_request_error")
    expect(firstData(responsesProtocol.streamError("m")).code).toBe("upstream_error")
    expect(firstData(geminiProtocol("gemini-2.5-pro", true).streamError("m", { status: 401 })).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" })
    expect(firstData(geminiProtocol("gemini-2.5-pro", true).streamError("m", { status: 404 })).error).toMatchObject({ code: 404, status: "NOT_FOUND" })
    expect(firstData(geminiProtocol("gemini-2.5-pro", true).streamError("m")).error).toMatchObject({ code: 500, status: "INTERNAL" })
  })
})
