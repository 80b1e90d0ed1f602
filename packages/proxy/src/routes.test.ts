import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { describe, expect, test } from "bun:test"
import type { Conversation } from "./protocol.js"
import { pathBelowBase, protocolOf, routeFor, upstreamUrl } from "./routes.js"
import { settingsOf } from "./server.js"
import { sessionIdOf } from "./session-id.js"

const routing = (patch: object = {}) => settingsOf({ ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, upstream: "http://up:1/v1", ...patch } }).routing

describe("routes", () => {
  test("the guarded paths, with or without /v1; the rest forwarded", () => {
    expect(protocolOf("/v1/chat/completions")?.name).toBe("chat")
    expect(protocolOf("/responses")?.name).toBe("responses")
    expect(protocolOf("/v1/messages")?.name).toBe("messages")
    expect(protocolOf("/v1/models")).toBeNull()
    expect(pathBelowBase("/v1/models")).toBe("/models")
  })

  test("the upstream URL keeps the upstream's base path and the query", () => {
    expect(upstreamUrl("http://up:1/v1", "/v1/chat/completions?x=1").toString()).toBe("http://up:1/v1/chat/completions?x=1")
    expect(upstreamUrl("https://api.example.com/openai/v1", "/v1/models").toString()).toBe("https://api.example.com/openai/v1/models")
  })

  test("the longest model prefix wins; a path prefix routes too; a provider's retry budgets apply", () => {
    const r = routing({
      routes: { "gpt-": { upstream: "http://a/v1" }, "gpt-4o": { upstream: "http://b/v1", provider: "b" }, "/v1/messages": { upstream: "http://c/v1" } }
    })
    const withProvider = { ...r, provider: { b: { retry: { request: { maxRetries: 0 } } } } }
    expect(routeFor(withProvider, "gpt-4o-mini", "/v1/chat/completions")?.base).toBe("http://b/v1")
    expect(routeFor(withProvider, "gpt-4o-mini", "/v1/chat/completions")?.budgets.request.maxRetries).toBe(0)
    expect(routeFor(withProvider, "gpt-3.5", "/v1/chat/completions")?.base).toBe("http://a/v1")
    expect(routeFor(withProvider, "claude", "/v1/messages")?.base).toBe("http://c/v1")
    expect(routeFor(withProvider, "other", "/v1/chat/completions")?.base).toBe("http://up:1/v1")
    expect(routeFor({ ...withProvider, upstream: null }, "other", "/v1/chat/completions")).toBeNull()
  })

  test("a route is resolved once per config: the next request to it gets the same route; another config its own", () => {
    const r = routing({ routes: { "gpt-4o": { upstream: "http://b/v1", provider: "b" } } })
    const config = { ...r, provider: { b: { retry: { request: { maxRetries: 0 } } } } }
    const first = routeFor(config, "gpt-4o", "/v1/chat/completions")
    expect(routeFor(config, "gpt-4o-mini", "/v1/chat/completions")).toBe(first!)
    expect(routeFor(config, "other", "/v1/chat/completions")?.base).toBe("http://up:1/v1")
    const another = { ...config, provider: { b: { retry: { request: { maxRetries: 7 } } } } }
    expect(routeFor(another, "gpt-4o", "/v1/chat/completions")?.budgets.request.maxRetries).toBe(7)
    expect(first?.budgets.request.maxRetries).toBe(0)
  })
})

describe("session id", () => {
  const conversation = (system: string, firstUser: string): Conversation => ({ system, firstUser, messages: [], wireLength: 0, model: undefined, stream: true, tools: [], structured: false, utility: false })
  test("the header when it is a safe id, else a hash of the system prompt and the first user message", () => {
    expect(sessionIdOf({ "x-loopguard-session": "abc-1" }, "x-loopguard-session", conversation("s", "u"))).toBe("abc-1")
    const hashed = sessionIdOf({ "x-loopguard-session": "bad id\n" }, "x-loopguard-session", conversation("s", "u"))
    expect(hashed).toMatch(/^proxy-[0-9a-f]{16}$/)
    expect(sessionIdOf({}, "x-loopguard-session", conversation("s", "u"))).toBe(hashed)
    expect(sessionIdOf({}, "x-loopguard-session", conversation("s", "other"))).not.toBe(hashed)
  })
})
