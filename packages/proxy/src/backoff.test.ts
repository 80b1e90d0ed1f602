/**
 * Backoff boards: one process's, and the told board of a proxy worker, whose holds go to the
 * others and whose reads see the holds it was told.
 */
import { expect, test } from "bun:test"
import { textStream } from "@loopguard/ai-sdk/testing"
import { backoffKeyFor, backoffKeyOf, memoryBackoff, toldBackoff, waitForTurn, type BackoffBoard } from "./backoff.js"
import { post, startRig } from "./proxy.fixture.js"

test("a board keeps the later of two holds per upstream", async () => {
  const board = memoryBackoff()
  await board.hold("a", 2_000)
  await board.hold("a", 1_000)
  expect(await board.until("a")).toBe(2_000)
  expect(await board.until("b")).toBe(0)
})

test("a told board passes its holds on and keeps the ones it hears", async () => {
  const told: Array<[string, number]> = []
  const one = toldBackoff((upstream, untilMs) => told.push([upstream, untilMs]))
  const other = toldBackoff(() => {})
  await one.hold("http://u/v1", 5_000)
  expect(await one.until("http://u/v1")).toBe(5_000)
  expect(told).toEqual([["http://u/v1", 5_000]])
  // What the supervisor does with it: the other worker hears it, and does not tell it again.
  for (const [upstream, untilMs] of told) other.heard(upstream, untilMs)
  expect(await other.until("http://u/v1")).toBe(5_000)
  other.heard("http://u/v1", 1_000)
  expect(await other.until("http://u/v1")).toBe(5_000)
  expect(told.length).toBe(1)
})

test("a request waits out a hold another worker was told", async () => {
  const board = toldBackoff(() => {})
  const started = Date.now()
  board.heard("u", started + 150)
  await waitForTurn(board, "u")
  expect(Date.now() - started).toBeGreaterThanOrEqual(140)
})

test("the board's key for an upstream holds no credential: no user, password or query, and replicas still share it", () => {
  expect(backoffKeyOf("http://bk:UserPw@127.0.0.1:8080/v1?key=QueryKey")).toBe("http://127.0.0.1:8080/v1")
  expect(backoffKeyOf("https://api.example/v1/")).toBe(backoffKeyOf("https://other:pw@api.example/v1?x=1#f"))
})

test("a request through the proxy reads and writes the board under the upstream without its credentials", async () => {
  const keys: Array<string> = []
  const board: BackoffBoard = { until: async (upstream) => (keys.push(upstream), 0), hold: async (upstream) => void keys.push(upstream) }
  const rig = await startRig([textStream("hi")], {
    config: (c) => ({ ...c, proxy: { ...c.proxy, upstream: (c.proxy.upstream ?? "").replace("://", "://bk:BackoffUserPw@") } }),
    proxy: { board }
  })
  try {
    const res = await post(`${rig.proxy.url}/v1/chat/completions`, { model: "m", stream: true, messages: [{ role: "user", content: "x" }] })
    expect(res.status).toBe(200)
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) expect(key).not.toContain("BackoffUserPw")
  } finally {
    await rig.close()
  }
}, 30_000)

test("each client's own key holds its own wait (a tag of the key, never the key); with the proxy's key, one wait for all", () => {
  const base = "http://127.0.0.1:8080/v1"
  const a = backoffKeyFor(base, { authorization: "Bearer sk-tenant-a-0123456789" }, false)
  const b = backoffKeyFor(base, { "x-api-key": "sk-ant-tenant-b-0123456789" }, false)
  expect(a).not.toBe(b)
  expect(a.startsWith(`${base}#`)).toBe(true)
  expect(a).not.toContain("tenant")
  expect(backoffKeyFor(base, { authorization: "Bearer sk-tenant-a-0123456789" }, false)).toBe(a)
  expect(backoffKeyFor(base, { authorization: "Bearer sk-tenant-a-0123456789" }, true)).toBe(base)
  expect(backoffKeyFor(base, {}, false)).toBe(base)
})
