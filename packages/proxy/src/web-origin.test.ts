import { afterEach, describe, expect, test } from "bun:test"
import { textStream } from "@loopguard/ai-sdk/testing"
import { HTTP_STACKS, startRig, type Rig } from "./proxy.fixture.js"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { hostRefusal, originRefusal } from "./web-origin.js"
import { requestUrlOf } from "./server.js"

describe("originRefusal", () => {
  test("no Origin (an agent), a page from this machine, or an allowed origin: served; any other page: refused", () => {
    expect(originRefusal(undefined, [])).toBeNull()
    for (const local of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:5173"]) expect(originRefusal(local, [])).toBeNull()
    expect(originRefusal("https://app.example", ["https://app.example"])).toBeNull()
    expect(originRefusal("https://evil.example", ["*"])).toBeNull()
    for (const page of ["https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.nip.io"]) expect(originRefusal(page, [])).toContain("refused")
  })
})

describe("hostRefusal", () => {
  test("on loopback: loopback names and the listen host are served, any other Host (a rebound name) is refused; elsewhere: any Host", () => {
    for (const host of ["localhost:4477", "127.0.0.1:4477", "127.0.0.2", "[::1]:4477", "LOCALHOST", undefined]) expect(hostRefusal(host, "127.0.0.1")).toBeNull()
    for (const host of ["attacker.example:4477", "localhost.attacker.example", "127.0.0.1.nip.io"]) expect(hostRefusal(host, "127.0.0.1")).toContain("DNS rebinding")
    expect(hostRefusal("attacker.example", "::1")).toContain("refused")
    expect(hostRefusal("attacker.example", "0.0.0.0")).toBeNull()
    expect(hostRefusal("proxy.internal:4477", "10.0.0.5")).toBeNull()
  })
})

/** A raw request with the `Host` header a rebound page's browser would send. */
const withHost = (url: string, method: string, host: string, body?: string): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { host, "content-type": "application/json" } }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on("error", reject)
    req.end(body)
  })

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  test("a web page's POST (text/plain, no preflight) is refused before it reaches the upstream or the store", async () => {
    rig = await startRig([textStream("should not be asked")], { proxy: { httpStack: stack } })
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "from a web page" }] })
    const page = await fetch(`${rig.proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "text/plain", origin: "https://evil.example" }, body })
    expect(page.status).toBe(403)
    expect((await page.json()).error.message).toContain("proxy.allowedOrigins")
    expect(rig.server.requests.length).toBe(0)
    const agent = await fetch(`${rig.proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body })
    expect(agent.status).toBe(200)
  }, 30_000)
})

describe.each(HTTP_STACKS)("%s http stack, DNS rebinding", (stack) => {
  test("a request addressed to another Host is refused (403, in the protocol's shape) before it reaches the upstream; loopback Hosts are served", async () => {
    rig = await startRig([textStream("served")], { proxy: { httpStack: stack } })
    const evil = `attacker.example:${rig.proxy.port}`
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "rebound" }] })
    const models = await withHost(`${rig.proxy.url}/v1/models`, "GET", evil)
    expect(models.status).toBe(403)
    const chat = await withHost(`${rig.proxy.url}/v1/chat/completions`, "POST", evil, body)
    expect(chat.status).toBe(403)
    expect(JSON.parse(chat.text).error.message).toContain("DNS rebinding")
    expect(rig.server.requests.length).toBe(0)
    expect((await withHost(`${rig.proxy.url}/loopguard/health`, "GET", `localhost:${rig.proxy.port}`)).status).toBe(200)
    expect((await withHost(`${rig.proxy.url}/v1/chat/completions`, "POST", `localhost:${rig.proxy.port}`, body)).status).toBe(200)
  }, 30_000)

  test("a request with no usable Host is judged, never an internal error: none or empty is served, one naming another host behind a user part is refused", async () => {
    rig = await startRig([textStream("served")], { proxy: { httpStack: stack } })
    const raw = (text: string) =>
      new Promise<string>((done) => {
        const socket = connect(rig!.proxy.port, "127.0.0.1", () => socket.write(text))
        let out = ""
        socket.on("data", (d) => (out += d.toString()))
        socket.on("close", () => done(out))
      })
    const statusOf = (reply: string) => Number(/^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1])
    expect(statusOf(await raw("GET /loopguard/health HTTP/1.0\r\n\r\n"))).toBe(200)
    expect(statusOf(await raw("GET /loopguard/health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n"))).toBe(200)
    const behindUser = await raw("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1@evil.example\r\nConnection: close\r\n\r\n")
    expect(statusOf(behindUser)).toBe(403)
    expect(behindUser).not.toContain("internal error")
    // A port no URL can hold: refused as a Host that names no loopback, not a 500 (Bun's URL of the request does not parse).
    const badPort = await raw("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:99999\r\nConnection: close\r\n\r\n")
    expect(statusOf(badPort)).toBe(403)
    expect(badPort).not.toContain("internal error")
    // The path of such a request stays a path: "//name/…" names no host.
    expect(requestUrlOf("http://127.0.0.1:99999//evil.example/v1/models").pathname).toBe("//evil.example/v1/models")
    expect(requestUrlOf("http://127.0.0.1:99999//evil.example/v1/models").host).toBe("host.invalid")
  }, 30_000)
})
