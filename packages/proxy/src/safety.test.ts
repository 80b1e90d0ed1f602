/**
 * Safe by default: when the proxy holds the upstream key, a client without the proxy token is
 * refused and the upstream gets the proxy's key, never the client's; a request body past the
 * limit is refused with 413; the upstream a request reaches comes from the routes, by model name
 * or path prefix, never from the request, and a route may bring its own detector settings.
 */
import { repeatLoop, startScriptedServer, textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { afterEach, describe, expect, test } from "bun:test"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { configWith, HTTP_STACKS, post, records, startRig, type Rig } from "./proxy.fixture.js"
import { ProxyStartError, startProxy } from "./server.js"

let rig: Rig | undefined
let other: ScriptedServer | undefined
afterEach(async () => {
  await rig?.close()
  await other?.close()
  rig = other = undefined
})

const chat = { model: "scripted-model", stream: true, messages: [{ role: "user", content: "hi" }] }

test("with the upstream key held by the proxy, only the proxy token gets through, and the upstream sees the proxy's key", async () => {
  rig = await startRig(() => textStream("ok"), { proxy: { auth: { token: "proxy-token-123", upstreamKey: "upstream-key-456" } } })
  const url = `${rig.proxy.url}/v1/chat/completions`
  expect((await post(url, chat)).status).toBe(401)
  expect((await post(url, chat, { authorization: "Bearer wrong-token" })).status).toBe(401)
  const anthropic = await post(`${rig.proxy.url}/v1/messages`, { ...chat, max_tokens: 10 }, { "x-api-key": "wrong" })
  expect(anthropic.status).toBe(401)
  expect(JSON.parse(anthropic.text).type).toBe("error")
  expect((await fetch(`${rig.proxy.url}/v1/models`)).status).toBe(401)
  expect(rig.server.requests.length).toBe(0)
  const ok = await post(url, chat, { authorization: "Bearer proxy-token-123" })
  expect(ok.status).toBe(200)
  expect(rig.server.requests[0]!.headers["authorization"]).toBe("Bearer upstream-key-456")
  const viaKey = await post(`${rig.proxy.url}/v1/messages`, { ...chat, max_tokens: 10 }, { "x-api-key": "proxy-token-123" })
  expect(viaKey.status).toBe(200)
  expect(rig.server.requests[1]!.headers["x-api-key"]).toBe("upstream-key-456")
  expect(JSON.stringify(rig.events)).not.toContain("upstream-key-456")
  expect(JSON.stringify(rig.events)).not.toContain("proxy-token-123")
}, 60_000)

test("a request body past proxy.maxRequestBytes is refused with 413 and never reaches the upstream", async () => {
  rig = await startRig(() => textStream("ok"), { config: (c) => ({ ...c, proxy: { ...c.proxy, maxRequestBytes: 1024 } }) })
  const big = await post(`${rig.proxy.url}/v1/chat/completions`, { ...chat, messages: [{ role: "user", content: "x".repeat(4096) }] })
  expect(big.status).toBe(413)
  expect(JSON.parse(big.text).error.message).toContain("proxy.maxRequestBytes")
  expect(rig.server.requests.length).toBe(0)
}, 60_000)

test("routes: a model-name prefix picks its upstream, the rest go to proxy.upstream", async () => {
  other = await startScriptedServer(() => textStream("from the routed upstream"))
  const routed = other.baseURL
  rig = await startRig(() => textStream("from the default upstream"), { config: (c) => ({ ...c, proxy: { ...c.proxy, routes: { "claude-": { upstream: routed } } } }) })
  const a = await post(`${rig.proxy.url}/v1/chat/completions`, { ...chat, model: "claude-x" })
  const b = await post(`${rig.proxy.url}/v1/chat/completions`, { ...chat, model: "gpt-x" })
  expect(a.text).toContain("from the")
  expect(other.requests.length).toBe(1)
  expect(rig.server.requests.length).toBe(1)
  expect(other.requests[0]!.body.model).toBe("claude-x")
  expect(rig.server.requests[0]!.body.model).toBe("gpt-x")
  expect(b.status).toBe(200)
  expect(records(rig.events).map((r) => r.model)).toEqual(["claude-x", "gpt-x"])
}, 60_000)

test("a route with its own config is guarded with its detector settings; the others with the main ones", async () => {
  const loop = repeatLoop("the same words over and over again here", 200, { finish: "stop" })
  const quiet = { ...DEFAULT_CONFIG, repeat: { ...DEFAULT_CONFIG.repeat, enabled: false } }
  rig = await startRig(() => loop, {
    config: (c) => ({ ...c, proxy: { ...c.proxy, routes: { "raw-": { upstream: c.proxy.upstream!, config: "raw.jsonc" } } } }),
    proxy: { routeConfigs: { "raw-": quiet } }
  })
  const guarded = await post(`${rig.proxy.url}/v1/chat/completions`, { ...chat, model: "gpt-x" })
  const unguarded = await post(`${rig.proxy.url}/v1/chat/completions`, { ...chat, model: "raw-model" })
  expect(guarded.text).toContain("[loopguard: this reply started repeating itself")
  expect(unguarded.text).not.toContain("[loopguard:")
  expect(records(rig.events).map((r) => r.outcome)).toEqual(["cut", "completed"])
}, 60_000)

test("toolCaps: a call past its tool's cap in the turn is not passed on; the agent gets the refusal", async () => {
  rig = await startRig(() => toolCallStream("bash", { command: "ls" }), { config: (c) => ({ ...c, toolCaps: { maxCallsPerTool: null, perTool: { bash: 2 } } }) })
  const step = (i: number) => [
    { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
    { role: "tool", tool_call_id: `c${i}`, content: `run ${i}` }
  ]
  const ask = (n: number) => post(`${rig!.proxy.url}/v1/chat/completions`, { ...chat, messages: [chat.messages[0], ...Array.from({ length: n }, (_, i) => step(i)).flat()] })
  expect((await ask(1)).text).toContain('"tool_calls"')
  const refused = await ask(2)
  expect(refused.text).not.toContain('"tool_calls"')
  expect(refused.text).toContain("[loopguard: not run: bash reached its cap of 2 calls")
  expect(refused.text.endsWith("data: [DONE]\n\n")).toBe(true)
}, 60_000)

test("an incident whose evidence quotes the client's key (a repeated curl with it) is logged and recorded without it", async () => {
  const key = "sk-client-key-quoted-0042"
  rig = await startRig(() => textStream("ok"))
  const step = (i: number) => [
    { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `curl -H 'x-api-key: ${key}' http://127.0.0.1:9/v1/models` }) } }] },
    { role: "tool", tool_call_id: `c${i}`, content: "curl: (7) Failed to connect" }
  ]
  const messages = [{ role: "user", content: "list the models" }, ...Array.from({ length: 5 }, (_, i) => step(i)).flat()]
  const res = await post(`${rig.proxy.url}/v1/chat/completions`, { model: "m", stream: true, messages }, { authorization: `Bearer ${key}` })
  expect(res.status).toBe(200)
  const [record] = records(rig.events)
  expect(record?.incidents.some((i) => i.detector === "repeated-action")).toBe(true)
  expect(JSON.stringify(record?.incidents)).toContain("[REDACTED]")
  expect(JSON.stringify(rig.events)).not.toContain(key)
}, 60_000)

test("with the upstream key held by the proxy, a Gemini client may give the token as ?key=: the upstream gets the proxy's key in its header, and no key in the URL", async () => {
  rig = await startRig(() => textStream("ok"), { proxy: { auth: { token: "proxy-token-123", upstreamKey: "upstream-key-456" } } })
  const path = `${rig.proxy.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`
  const ask = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
  expect((await post(`${path}&key=wrong-token`, ask)).status).toBe(401)
  expect(rig.server.requests.length).toBe(0)
  const ok = await post(`${path}&key=proxy-token-123`, ask)
  expect(ok.status).toBe(200)
  expect(rig.server.requests[0]!.headers["x-goog-api-key"]).toBe("upstream-key-456")
  expect(rig.server.requests[0]!.url).toEndWith("/v1beta/models/gemini-x:streamGenerateContent?alt=sse")
  expect(JSON.stringify(rig.events)).not.toContain("proxy-token-123")
}, 60_000)

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("a forwarded Gemini path with the token as ?key=: the proxy's key goes in Google's key header, the URL keeps the rest of its query", async () => {
    const seen: Array<{ url: string; key: unknown }> = []
    const capture = createServer((req, res) => {
      seen.push({ url: req.url ?? "", key: req.headers["x-goog-api-key"] })
      res.writeHead(200, { "content-type": "application/json" })
      res.end('{"models":[]}')
    })
    await new Promise<void>((done) => capture.listen(0, "127.0.0.1", done))
    const port = (capture.address() as AddressInfo).port
    const proxy = await startProxy({ config: configWith(`http://127.0.0.1:${port}`), host: "127.0.0.1", port: 0, httpStack: stack, auth: { token: "proxy-token-123", upstreamKey: "upstream-key-456" } })
    try {
      expect((await fetch(`${proxy.url}/v1beta/models?pageSize=5&key=wrong`)).status).toBe(401)
      const listed = await fetch(`${proxy.url}/v1beta/models?pageSize=5&key=proxy-token-123`)
      expect([listed.status, await listed.text()]).toEqual([200, '{"models":[]}'])
      expect(seen).toEqual([{ url: "/v1beta/models?pageSize=5", key: "upstream-key-456" }])
    } finally {
      await proxy.close()
      await new Promise((done) => capture.close(done))
    }
  }, 60_000)
})

describe.each(HTTP_STACKS)("%s http stack: keys held for routes", (stack) => {
  test("a route to another origin gets no held key (nor the client's token), a route with its own keyEnv gets its key, guarded and forwarded", async () => {
    const seen: Array<{ port: number; url: string; auth: unknown; apiKey: unknown }> = []
    const capture = () => {
      const server = createServer((req, res) => {
        seen.push({ port: (server.address() as AddressInfo).port, url: req.url ?? "", auth: req.headers["authorization"], apiKey: req.headers["x-api-key"] })
        req.resume()
        res.writeHead(200, { "content-type": "application/json" })
        res.end('{"data":[]}')
      })
      return new Promise<typeof server>((done) => server.listen(0, "127.0.0.1", () => done(server)))
    }
    const [main, local, own] = await Promise.all([capture(), capture(), capture()])
    const portOf = (s: typeof main) => (s.address() as AddressInfo).port
    const base = configWith(`http://127.0.0.1:${portOf(main)}/v1`)
    const routes = { "local-": { upstream: `http://127.0.0.1:${portOf(local)}/v1` }, "/v1/embeddings": { upstream: `http://127.0.0.1:${portOf(local)}/v1` }, "claude-": { upstream: `http://127.0.0.1:${portOf(own)}/v1` } }
    const config = { ...base, proxy: { ...base.proxy, routes } }
    const proxy = await startProxy({ config, host: "127.0.0.1", port: 0, httpStack: stack, auth: { token: "proxy-token-123", upstreamKey: "upstream-key-456", routeKeys: new Map([["claude-", "route-key-789"]]) } })
    const token = { authorization: "Bearer proxy-token-123" }
    try {
      await post(`${proxy.url}/v1/chat/completions`, { model: "gpt-x", messages: [{ role: "user", content: "hi" }] }, token)
      await post(`${proxy.url}/v1/chat/completions`, { model: "local-qwen", messages: [{ role: "user", content: "hi" }] }, token)
      await post(`${proxy.url}/v1/embeddings`, { model: "e", input: "hi" }, token)
      await post(`${proxy.url}/v1/chat/completions`, { model: "claude-x", messages: [{ role: "user", content: "hi" }] }, token)
      expect(seen.map((s) => [s.port, s.auth, s.apiKey])).toEqual([
        [portOf(main), "Bearer upstream-key-456", undefined],
        [portOf(local), undefined, undefined],
        [portOf(local), undefined, undefined],
        [portOf(own), "Bearer route-key-789", undefined]
      ])
    } finally {
      await proxy.close()
      await Promise.all([main, local, own].map((s) => new Promise((done) => s.close(done))))
    }
  }, 60_000)
})

describe("a port already taken", () => {
  for (const stack of HTTP_STACKS) {
    test(`${stack} stack: startProxy fails with ProxyStartError, in the same words as on the other stack`, async () => {
      const first = await startProxy({ config: configWith("http://127.0.0.1:9/v1"), host: "127.0.0.1", port: 0, httpStack: stack })
      try {
        const second = startProxy({ config: configWith("http://127.0.0.1:9/v1"), host: "127.0.0.1", port: first.port, httpStack: stack })
        const failed = await second.then(
          (p) => (void p.close(), null),
          (e: unknown) => e
        )
        expect(failed).toBeInstanceOf(ProxyStartError)
        expect((failed as ProxyStartError).message).toBe(`could not listen on 127.0.0.1:${first.port}: the address is already in use`)
      } finally {
        await first.close()
      }
    }, 30_000)
  }
})

describe("options a library caller got wrong", () => {
  const refusal = async (config: unknown): Promise<string> => {
    const failed = await startProxy({ config: config as typeof DEFAULT_CONFIG, host: "127.0.0.1", port: 0 }).then(
      (p) => (void p.close(), null),
      (e: unknown) => e
    )
    expect(failed).toBeInstanceOf(ProxyStartError)
    return (failed as ProxyStartError).message
  }

  test("fail at start with ProxyStartError naming the field, never a 500 on each request", async () => {
    expect(await refusal(configWith("notaurl"))).toBe("loopguard proxy: config.proxy.upstream: not an http(s) URL: notaurl")
    expect(await refusal(configWith("ftp://x/v1"))).toContain("config.proxy.upstream: not an http(s) URL")
    expect(await refusal(DEFAULT_CONFIG)).toBe("loopguard proxy: no upstream: set config.proxy.upstream (or config.proxy.routes)")
    const routed = configWith("http://127.0.0.1:9/v1")
    expect(await refusal({ ...routed, proxy: { ...routed.proxy, routes: { "claude-": { upstream: "http://h/v1?key=SECRETQUERY" } } } })).toContain('config.proxy.routes["claude-"].upstream:')
    // Plain JavaScript: a config of the wrong shape, named field by field.
    const shapeless = await refusal({ repeat: 1 })
    expect(shapeless).toContain("config field repeat")
    expect(shapeless).not.toContain("undefined")
  })

  test("the key a query carries is not in the refusal", async () => {
    const routed = configWith("http://127.0.0.1:9/v1")
    expect(await refusal({ ...routed, proxy: { ...routed.proxy, routes: { "claude-": { upstream: "http://h/v1?key=SECRETQUERY" } } } })).not.toContain("SECRETQUERY")
  })
})
