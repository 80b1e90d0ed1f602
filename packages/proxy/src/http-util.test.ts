/** The headers the proxy passes on, each way: never those of one hop only. */
import { describe, expect, test } from "bun:test"
import { clientHeaders, credentialsOf, errorBody, heldKeyFor, upstreamHeaders } from "./http-util.js"
import { routeFor } from "./routes.js"

const open = { token: null, upstreamKey: null }

describe("hop-by-hop headers", () => {
  test("upstream: the fixed ones, Proxy-Connection, and those the client's Connection header names stay behind", () => {
    const out = upstreamHeaders(
      { connection: "close, X-Secret", "x-secret": "hopsecret", "proxy-connection": "keep-alive", "keep-alive": "timeout=5", te: "trailers", authorization: "Bearer sk-client", "content-type": "application/json", "x-other": "kept" },
      [],
      open,
      "chat",
      false,
      null
    )
    expect(out).toEqual({ authorization: "Bearer sk-client", "content-type": "application/json", "x-other": "kept" })
  })

  test("to the client: those the upstream's Connection header names stay behind too", () => {
    const out = clientHeaders({ connection: "x-upstream-hop", "x-upstream-hop": "1", "content-type": "text/event-stream", "x-request-id": "r1" }, { "x-loopguard-session": "s" }, false, [])
    expect(out).toEqual({ "content-type": "text/event-stream", "x-request-id": "r1", "x-loopguard-session": "s" })
  })
})

describe("errorBody", () => {
  test("a wait the proxy cannot take is a rate limit in each protocol's words, not a bad request", () => {
    expect(JSON.parse(errorBody("chat", 429, "wait"))).toEqual({ error: { message: "wait", type: "rate_limit_error", code: "rate_limit_exceeded" } })
    expect(JSON.parse(errorBody("messages", 429, "wait"))).toEqual({ type: "error", error: { type: "rate_limit_error", message: "wait" } })
    expect(JSON.parse(errorBody("gemini", 429, "wait"))).toEqual({ error: { code: 429, message: "wait", status: "RESOURCE_EXHAUSTED" } })
    expect(JSON.parse(errorBody("chat", 413, "big")).error.type).toBe("invalid_request_error")
    expect(JSON.parse(errorBody("chat", 401, "who")).error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" })
    expect(JSON.parse(errorBody("messages", 502, "down")).error.type).toBe("api_error")
  })
})

describe("which upstream gets a held key", () => {
  const routing = {
    upstream: "https://api.openai.com/v1",
    routes: { "claude-": { upstream: "https://api.anthropic.com/v1" }, "gpt-5": { upstream: "https://api.openai.com/v1/" }, "local-": { upstream: "http://127.0.0.1:8080/v1" } },
    provider: {},
    chunkTimeoutMs: 1000
  }
  const auth = { token: "t", upstreamKey: "sk-openai-held", routeKeys: new Map([["claude-", "sk-ant-route"]]) }
  const keyOf = (model: string) => heldKeyFor(auth, routeFor(routing, model, "/v1/chat/completions")!)
  test("proxy.upstream and routes on its origin get the held key; a route with its own key gets that; any other host gets none", () => {
    expect(keyOf("o3")).toBe("sk-openai-held")
    expect(keyOf("gpt-5-mini")).toBe("sk-openai-held")
    expect(keyOf("claude-sonnet")).toBe("sk-ant-route")
    expect(keyOf("local-qwen")).toBeNull()
  })
  test("a route to another host is sent no credential at all: neither the held key nor the client's token", () => {
    const out = upstreamHeaders({ authorization: "Bearer t", "x-api-key": "t" }, [], auth, "chat", true, keyOf("local-qwen"))
    expect(out["authorization"]).toBeUndefined()
    expect(out["x-api-key"]).toBeUndefined()
  })
})

describe("credentialsOf", () => {
  test("a Bearer token, an api key header and a ?key= parameter are the client's credentials", () => {
    expect(credentialsOf({ authorization: "Bearer sk-client-123456", "x-api-key": "sk-ant-abcdefgh" }, "/v1beta/models/m:generateContent?key=AIzaSECRET1234")).toEqual(["AIzaSECRET1234", "sk-client-123456", "sk-ant-abcdefgh"])
  })

  test("a Basic authorization: the encoded value, and what it decodes to (user:password, and the password alone when long enough)", () => {
    const encoded = Buffer.from("alice:hunter2-long-secret").toString("base64")
    expect(credentialsOf({ authorization: `Basic ${encoded}` })).toEqual([encoded, "alice:hunter2-long-secret", "hunter2-long-secret"])
    // A short password is not redacted alone (it would blank ordinary words), only with its user.
    const short = Buffer.from("bob:pw12").toString("base64")
    expect(credentialsOf({ authorization: `Basic ${short}` })).toEqual([short, "bob:pw12"])
  })
})
