/**
 * The bounds of the paths the proxy forwards as they came, on both HTTP stacks: the request body
 * stops at proxy.maxRequestBytes (413, also chunked); a proxy holding the upstream key never lets
 * it (or its token) reach a client in a header or a whole body, nor sends the token upstream in
 * any credential header; a request target is read for its path only (`..` cannot leave the base,
 * an absolute-form request line cannot crash the proxy).
 */
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { afterEach, describe, expect, test } from "bun:test"
import { connect } from "node:net"
import { requestTargetOf, resolveDotSegments, upstreamUrl } from "./routes.js"
import { startProxy, type HttpStack, type RunningProxy } from "./server.js"

const KEY = "sk-upstreamSECRET-0123456789abcdefXYZ"
const TOKEN = "proxytoken-ABCDEF123456"

interface Seen {
  readonly path: string
  readonly headers: Record<string, string>
  readonly bytes: number
}

/** An upstream that records each request and echoes the credential it got, in a header and in the body. */
const echoingUpstream = () => {
  const seen: Array<Seen> = []
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const body = await req.arrayBuffer()
      const headers = Object.fromEntries(req.headers)
      seen.push({ path: new URL(req.url).pathname, headers, bytes: body.byteLength })
      const got = headers["authorization"] ?? headers["x-api-key"] ?? "none"
      if (new URL(req.url).pathname.endsWith("/stream")) return new Response(`data: ${got}\n\n`, { headers: { "content-type": "text/event-stream" } })
      const status = Number(headers["x-want-status"] ?? 200)
      return Response.json({ data: [], echo: got, received: body.byteLength }, { status, headers: { "x-echo-key": got, "www-authenticate": `Bearer realm=${got}` } })
    }
  })
  return { seen, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c()
  cleanup = []
})

const rig = async (stack: HttpStack, options: { readonly base?: string; readonly maxRequestBytes?: number; readonly auth?: boolean } = {}) => {
  const up = echoingUpstream()
  const config = { ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, upstream: `${up.url}${options.base ?? "/v1"}`, maxRequestBytes: options.maxRequestBytes ?? DEFAULT_CONFIG.proxy.maxRequestBytes } }
  const proxy: RunningProxy = await startProxy({ config, host: "127.0.0.1", port: 0, httpStack: stack, ...(options.auth === true ? { auth: { token: TOKEN, upstreamKey: KEY } } : {}) })
  cleanup.push(up.stop, proxy.close)
  return { up, proxy }
}

/** One raw HTTP/1.1 exchange: what the server answered (empty when it did not). */
const raw = (port: number, request: string): Promise<string> =>
  new Promise((done) => {
    let answer = ""
    const socket = connect(port, "127.0.0.1", () => socket.write(request))
    socket.on("data", (d) => (answer += d))
    socket.on("error", () => done(answer))
    socket.on("close", () => done(answer))
    setTimeout(() => socket.destroy(), 3_000)
  })

describe("request targets", () => {
  test("dot segments resolve (also %2e); a path that climbs above its root is refused", () => {
    expect(resolveDotSegments("/v1/./models")).toBe("/v1/models")
    expect(resolveDotSegments("/v1/../models")).toBe("/models")
    expect(resolveDotSegments("/v1/%2E%2e/x/.")).toBe("/x/")
    expect(resolveDotSegments("/v1/../../secret/admin")).toBeNull()
    // An encoded separator: a server decoding it before resolving the dots would climb out.
    expect(resolveDotSegments("/v1/..%2f..%2fx")).toBeNull()
    expect(resolveDotSegments("/v1/%2E%2E%5Cadmin")).toBeNull()
    expect(requestTargetOf("/%2e%2e%2f%2e%2e%2fx?q=%2f")).toBeNull()
    expect(requestTargetOf("/v1/models?path=a%2fb")).toBe("/v1/models?path=a%2fb")
    expect(resolveDotSegments("/v1/%2e%2e/%2e%2e/secret")).toBeNull()
    expect(resolveDotSegments("/v1/..\\..\\secret")).toBeNull()
    expect(requestTargetOf("http://127.0.0.1:1/x?y=1")).toBe("/x?y=1")
    expect(requestTargetOf("*")).toBeNull()
    expect(() => upstreamUrl("http://up:1/v1", "/v1/../../secret")).toThrow()
    expect(upstreamUrl("http://up:1", "http://elsewhere:2/v1/models").toString()).toBe("http://up:1/models")
  })
})

for (const stack of ["node", "bun"] as const) {
  describe(`forwarded paths on the ${stack} stack`, () => {
    test("a body past proxy.maxRequestBytes is refused with 413 and never reaches the upstream, with or without Content-Length", async () => {
      const { up, proxy } = await rig(stack, { maxRequestBytes: 100_000 })
      const big = "x".repeat(300_000)
      const sized = await fetch(`${proxy.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: big })
      expect(sized.status).toBe(413)
      expect(JSON.parse(await sized.text()).error).toMatchObject({ type: "invalid_request_error" })
      const chunks = [big.slice(0, 150_000), big.slice(150_000)]
      const chunked = await fetch(`${proxy.url}/v1/embeddings`, {
        method: "POST",
        body: new ReadableStream({ pull: (c) => (chunks.length > 0 ? c.enqueue(new TextEncoder().encode(chunks.shift()!)) : c.close()) }),
        duplex: "half"
      } as RequestInit)
      expect(chunked.status).toBe(413)
      expect(up.seen.every((s) => s.bytes <= 100_000)).toBe(true)
      const small = await fetch(`${proxy.url}/v1/embeddings`, { method: "POST", body: "x".repeat(1000) })
      expect(await small.json()).toMatchObject({ received: 1000 })
    })

    test("holding the upstream key: no header or whole body the client gets holds it, and the token goes upstream in no header", async () => {
      const { up, proxy } = await rig(stack, { auth: true })
      const models = await fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${TOKEN}`, "api-key": TOKEN } })
      const text = `${JSON.stringify(Object.fromEntries(models.headers))} ${await models.text()}`
      expect(models.status).toBe(200)
      expect(text).not.toContain(KEY)
      expect(text).toContain("[REDACTED]")
      expect(JSON.parse(text.slice(text.indexOf("} ") + 2))).toMatchObject({ echo: "Bearer [REDACTED]" })
      const sent = up.seen.at(-1)!
      expect(sent.headers["authorization"]).toBe(`Bearer ${KEY}`)
      expect(JSON.stringify(sent.headers)).not.toContain(TOKEN)
      // Streamed forwarded bodies pass as they came; their headers are still redacted.
      const streamed = await fetch(`${proxy.url}/v1/stream`, { headers: { "x-api-key": TOKEN } })
      expect(JSON.stringify(Object.fromEntries(streamed.headers))).not.toContain(KEY)
      await streamed.text()
    })

    test("holding the upstream key: a guarded path's whole reply and error body have it redacted too", async () => {
      const { proxy } = await rig(stack, { auth: true })
      const ask = (status: number) =>
        fetch(`${proxy.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-want-status": String(status) },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] })
        })
      for (const status of [200, 401]) {
        const reply = await ask(status)
        const text = `${JSON.stringify(Object.fromEntries(reply.headers))} ${await reply.text()}`
        expect(reply.status).toBe(status)
        expect(text).not.toContain(KEY)
        expect(text).toContain("[REDACTED]")
      }
    })

    test("a path whose .. climbs above the base is refused with 400; an absolute-form request line is read for its path and never crashes the proxy", async () => {
      const below = await rig(stack, { base: "/v1" })
      const climbing = await raw(below.proxy.port, "GET /v1/../../secret/admin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      // Bun's server resolves dot segments (clamped at the root) before the proxy sees the path: it stays below the base.
      if (stack === "node") expect(climbing.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request")
      expect(below.up.seen.every((s) => s.path.startsWith("/v1/"))).toBe(true)
      const { up, proxy } = await rig(stack, { base: "" })
      const absolute = await raw(proxy.port, "GET http://127.0.0.1:1/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      expect(absolute.split("\r\n")[0]).toBe("HTTP/1.1 200 OK")
      expect(up.seen.at(-1)?.path).toBe("/x")
      const health = await fetch(`${proxy.url}/loopguard/health`)
      expect(health.status).toBe(200)
    })
  })
}
