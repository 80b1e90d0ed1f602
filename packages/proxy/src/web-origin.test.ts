import { afterEach, describe, expect, test } from "bun:test"
import { textStream } from "@loopguard/ai-sdk/testing"
import { HTTP_STACKS, startRig, type Rig } from "./proxy.fixture.js"
import { originRefusal } from "./web-origin.js"

describe("originRefusal", () => {
  test("no Origin (an agent), a page from this machine, or an allowed origin: served; any other page: refused", () => {
    expect(originRefusal(undefined, [])).toBeNull()
    for (const local of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:5173"]) expect(originRefusal(local, [])).toBeNull()
    expect(originRefusal("https://app.example", ["https://app.example"])).toBeNull()
    expect(originRefusal("https://evil.example", ["*"])).toBeNull()
    for (const page of ["https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.nip.io"]) expect(originRefusal(page, [])).toContain("refused")
  })
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
