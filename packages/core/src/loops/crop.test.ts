import { describe, expect, test } from "bun:test"
import type { AssistantMessage, CropMarker, Message } from "../model/message.js"
import { applyCrops, buildRequestView, contentBlocks } from "./crop.js"
import { call, reply, user } from "./fixtures.js"
import { CONTINUE_TEXT } from "./prompts.js"
import { replyKey } from "./reply-key.js"
import { DEFAULT_LOOP_STREAK, detectStreak } from "./streak.js"

const K = (id: string) => call(id, "read", { path: "a" })
const L = (id: string) => call(id, "grep", { q: "x" })
const T = (id: string) => reply({ id, text: "note" })
const KEY = replyKey(K("x"))
const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)
const marker = (from: string, to: string, key = KEY): CropMarker => ({ from, to, key, truncated: false })

describe("applyCrops", () => {
  test("drops only the replies in the range that carry the key", () => {
    const msgs = [user("u1"), K("a0"), L("a1"), K("a2"), T("t"), K("a3"), L("a4"), K("a5")]
    const r = applyCrops(msgs, [marker("a1", "a4")])
    expect(r.croppedIds).toEqual(["a2", "a3"])
    expect(ids(r.messages)).toEqual(["u1", "a0", "a1", "t", "a4", "a5"])
    expect(r.continued).toBe(false)
  })

  test("user messages inside a range stay", () => {
    const r = applyCrops([user("u1"), K("a1"), user("u2"), K("a2")], [marker("a1", "a2")])
    expect(ids(r.messages)).toEqual(["u1", "u2"])
  })

  test("Continue. is appended when the crop leaves the request ending on an assistant message", () => {
    const r = applyCrops([user("u1"), L("a0"), K("a1"), K("a2"), K("a3")], [marker("a1", "a3")])
    expect(r.continued).toBe(true)
    const last = r.messages[r.messages.length - 1]!
    expect(last).toEqual({ role: "user", id: "continue:a0", text: CONTINUE_TEXT, synthetic: "continue" })
  })

  test("no Continue. when the crop leaves a user message last", () => {
    const r = applyCrops([user("u1"), K("a1"), K("a2"), K("a3")], [marker("a1", "a3")])
    expect(ids(r.messages)).toEqual(["u1"])
    expect(r.continued).toBe(false)
  })

  test("no Continue. when the tail was not cropped (a later request re-applying an old marker)", () => {
    const r = applyCrops([user("u1"), L("a0"), K("a1"), K("a2"), L("a3")], [marker("a1", "a2")])
    expect(r.continued).toBe(false)
    expect(ids(r.messages)).toEqual(["u1", "a0", "a3"])
  })

  test("no markers, nothing dropped, nothing appended", () => {
    const msgs = [user("u1"), K("a1")]
    const r = applyCrops(msgs, [])
    expect(r.messages).toEqual(msgs)
    expect([r.croppedIds, r.croppedBlocks, r.cacheRisk, r.continued]).toEqual([[], 0, false, false])
  })

  test("croppedBlocks counts text and reasoning parts 1, tool parts 2; cacheRisk above 20", () => {
    const big = (id: string, tools: number): AssistantMessage =>
      reply({ id, reasoning: "r", text: "t", tools: Array.from({ length: tools }, () => ["read", { path: "a" }] as const) })
    expect(contentBlocks(big("x", 3))).toBe(8)
    const key = replyKey(big("k", 1))
    // 3 replies × (2 + 2·2) blocks = 18; cacheRisk needs more than 20.
    const at = (n: number) => [user("u"), ...Array.from({ length: n }, (_, i) => big(`b${i}`, 2))]
    const r18 = applyCrops(at(3), [{ from: "b0", to: "b2", key, truncated: false }])
    expect([r18.croppedBlocks, r18.cacheRisk]).toEqual([18, false])
    const msgs20 = [...at(3), reply({ id: "e", reasoning: "r", text: "t" })]
    // e has the same reasoning, so the same key: 18 + 2 blocks.
    const r20 = applyCrops(msgs20, [{ from: "b0", to: "e", key, truncated: false }])
    expect([r20.croppedBlocks, r20.cacheRisk]).toEqual([20, false])
    const r24 = applyCrops(at(4), [{ from: "b0", to: "b3", key, truncated: false }])
    expect([r24.croppedBlocks, r24.cacheRisk]).toEqual([24, true])
    expect(applyCrops(at(4), [{ from: "b0", to: "b3", key, truncated: false }], { cacheRiskBlocks: 30 }).cacheRisk).toBe(false)
  })

  test("markers whose endpoints are missing or reversed are reported and not applied", () => {
    const msgs = [user("u1"), K("a1"), K("a2")]
    const bad = [marker("gone", "a2"), marker("a2", "a1"), marker("a1", "a2", "")]
    const r = applyCrops(msgs, bad)
    expect(r.messages).toEqual(msgs)
    expect(r.unresolved).toEqual(bad)
  })

  test("overlapping markers: each is resolved before any reply is dropped", () => {
    const msgs = [user("u1"), L("a0"), K("a1"), K("a2"), K("a3"), K("a4")]
    const r = applyCrops(msgs, [marker("a1", "a3"), marker("a3", "a4")])
    expect(r.croppedIds).toEqual(["a1", "a2", "a3", "a4"])
    expect(r.unresolved).toEqual([])
  })
  test("many overlapping markers of two keys drop exactly the replies some covering marker keys (against a walk per reply)", () => {
    // A small deterministic generator: histories of K, L and text replies with markers anywhere in them.
    let seed = 7
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
    for (let round = 0; round < 40; round++) {
      const msgs: Array<Message> = [user("u0")]
      for (let i = 0; i < 30; i++) msgs.push([K, L, T][next(3)]!(`m${i}`))
      const markers = Array.from({ length: 12 }, () => {
        const [a, b] = [1 + next(30), 1 + next(30)].sort((x, y) => x - y)
        return marker(msgs[a!]!.id, msgs[b!]!.id, next(2) === 0 ? KEY : replyKey(L("x")))
      })
      const expected = msgs.filter((m, i) => m.role === "assistant" && markers.some((c) => {
        const from = msgs.findIndex((x) => x.id === c.from)
        const to = msgs.findIndex((x) => x.id === c.to)
        return i >= from && i <= to && replyKey(m as AssistantMessage) === c.key
      }))
      expect(ids(applyCrops(msgs, markers).messages.filter((m) => !m.id.startsWith("continue:")))).toEqual(ids(msgs.filter((m) => !expected.includes(m))))
    }
  })
})

describe("buildRequestView", () => {
  test("excluded replies are left out", () => {
    const x = reply({ id: "x", text: "<tool_call>", finish: "tool-calls", excluded: "text-tool-call" })
    expect(ids(buildRequestView([user("u1"), K("a1"), x]).messages)).toEqual(["u1", "a1"])
  })

  test("crops persisted on earlier user messages are re-applied to every later request", () => {
    const m = marker("a1", "a3")
    const turn1 = [user("u1", "fix it", { crops: [m] }), L("a0"), K("a1"), K("a2"), K("a3")]
    const req1 = buildRequestView(turn1)
    expect(ids(req1.messages)).toEqual(["u1", "a0", "continue:a0"])

    const later = [...turn1, L("a4"), T("t5"), user("u2", "now the docs"), L("a6")]
    const req2 = buildRequestView(later)
    expect(ids(req2.messages)).toEqual(["u1", "a0", "a4", "t5", "u2", "a6"])
    expect(req2.croppedIds).toEqual(["a1", "a2", "a3"])
    // Stable prefix: the earlier request (without its trailing Continue.) is a prefix of the later one.
    const prefix = req1.messages.slice(0, -1)
    expect(req2.messages.slice(0, prefix.length)).toEqual(prefix)
  })

  test("a marker still resolves when one of its endpoints was later excluded", () => {
    const a3 = { ...K("a3"), excluded: "rollback" as const }
    const msgs = [user("u1", "go", { crops: [marker("a1", "a3")] }), L("a0"), K("a1"), K("a2"), a3, L("a4")]
    const r = buildRequestView(msgs)
    expect(r.unresolved).toEqual([])
    expect(ids(r.messages)).toEqual(["u1", "a0", "a4"])
  })

  test("detect → persist → rebuild: the cycle the RunLoop runs", () => {
    const history: Array<Message> = [user("u1"), L("a0"), K("a1"), K("a2"), K("a3")]
    const d = detectStreak(history, { ...DEFAULT_LOOP_STREAK, enabled: true })!
    const persisted = history.map((m) => (m.id === d.persistOn ? { ...m, crops: [d.marker] } : m))
    const view = buildRequestView(persisted)
    expect(ids(view.messages)).toEqual(["u1", "a0", "continue:a0"])
    expect(view.continued).toBe(true)
    // Nothing was deleted from the history itself.
    expect(persisted.length).toBe(history.length)
  })
})
