import { describe, expect, test } from "bun:test"
import type { CropMarker, Message } from "../model/message.js"
import { applyCrops } from "./crop.js"
import { call, reply, user } from "./fixtures.js"
import { replyKey } from "./reply-key.js"
import { DEFAULT_LOOP_STREAK, detectStreak } from "./streak.js"

const on = { ...DEFAULT_LOOP_STREAK, enabled: true }
const K = (id: string, input: unknown = { path: "a" }) => reply({ id, reasoning: "I must read a again", tools: [["read", input]] })
const L = (id: string) => call(id, "grep", { q: "x" })
const T = (id: string) => reply({ id, text: "still thinking" })
const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)

describe("detectStreak", () => {
  test("off by default", () => {
    expect(DEFAULT_LOOP_STREAK).toEqual({ enabled: false, triggerCount: 3, maxSpan: 64 })
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3")])).toBeNull()
  })

  test("2 keyed replies: nothing; 3: a range over them, anchored on the reply before", () => {
    expect(detectStreak([user("u1"), L("a0"), K("a1"), K("a2")], on)).toBeNull()
    const d = detectStreak([user("u1"), L("a0"), K("a1"), K("a2"), K("a3")], on)
    expect(d).not.toBeNull()
    expect(d!.marker).toEqual({ from: "a1", to: "a3", key: replyKey(K("x")), truncated: false })
    expect(d!.anchorId).toBe("a0")
    expect(d!.replyIds).toEqual(["a1", "a2", "a3"])
    expect(d!.persistOn).toBe("u1")
    // Each K reply: one reasoning part (1 block) + one tool part (call + result, 2 blocks).
    expect(d!.croppedBlocks).toBe(9)
  })

  test("drifted tool arguments stay in a reasoning streak", () => {
    const d = detectStreak([user("u1"), K("a1", { path: "a" }), K("a2", { path: "a", n: 1 }), K("a3", { path: "b" })], on)
    expect(d?.marker.from).toBe("a1")
  })

  test("the streak extends back while the key holds and stops at another key", () => {
    const d = detectStreak([user("u1"), K("a1"), L("a2"), K("a3"), K("a4"), K("a5"), K("a6")], on)
    expect(d?.marker.from).toBe("a3")
    expect(d?.anchorId).toBe("a2")
  })

  test("text-only replies in between are transparent", () => {
    const msgs = [user("u1"), L("a0"), K("a1"), T("t1"), K("a2"), K("a3")]
    const d = detectStreak(msgs, on)
    expect(d?.marker.from).toBe("a1")
    expect(d?.replyIds).toEqual(["a1", "a2", "a3"])
    // ...and applying the marker keeps them.
    expect(ids(applyCrops(msgs, [d!.marker]).messages)).toEqual(["u1", "a0", "t1", "continue:t1"])
  })

  test("the range must end at the newest reply: a text-only or other-keyed newest reply means no crop", () => {
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3"), T("t1")], on)).toBeNull()
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3"), L("a4")], on)).toBeNull()
  })

  test("a user message newer than the newest reply: no detection; a synthetic reminder does not count", () => {
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3"), user("u2")], on)).toBeNull()
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3"), user("r", "go on", { synthetic: "think-only" })], on)?.persistOn).toBe("u1")
  })

  test("maxSpan truncation: only the newest maxSpan replies; the one before (same key) is the kept anchor", () => {
    const msgs = [user("u1"), K("a1"), K("a2"), K("a3"), K("a4"), K("a5")]
    const d = detectStreak(msgs, { ...on, maxSpan: 3 })
    expect(d?.marker).toEqual({ from: "a3", to: "a5", key: replyKey(K("x")), truncated: true })
    expect(d?.anchorId).toBe("a2")
    expect(ids(applyCrops(msgs, [d!.marker]).messages)).toEqual(["u1", "a1", "a2", "continue:a2"])
    // Exactly maxSpan long is not truncated.
    expect(detectStreak(msgs.slice(0, 4), { ...on, maxSpan: 3 })?.marker.truncated).toBe(false)
  })

  test("no reply before the range → no anchor", () => {
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3")], on)?.anchorId).toBeNull()
  })

  test("replies already cropped by a persisted marker are not seen again", () => {
    const marker: CropMarker = { from: "a1", to: "a3", key: replyKey(K("x")), truncated: false }
    const base = [user("u1", "go", { crops: [marker] }), L("a0"), K("a1"), K("a2"), K("a3")]
    expect(detectStreak([...base, K("a4"), K("a5")], on)).toBeNull()
    const d = detectStreak([...base, K("a4"), K("a5"), K("a6")], on)
    expect(d?.marker.from).toBe("a4")
    expect(d?.anchorId).toBe("a0")
  })

  test("excluded replies are skipped", () => {
    const x = reply({ id: "x", text: "<invoke name=", finish: "tool-calls", excluded: "text-tool-call" })
    expect(detectStreak([user("u1"), K("a1"), K("a2"), x, K("a3")], on)?.replyIds).toEqual(["a1", "a2", "a3"])
  })

  test("unkeyed history and unfinished replies", () => {
    expect(detectStreak([user("u1"), T("t1"), T("t2"), T("t3")], on)).toBeNull()
    expect(detectStreak([user("u1"), K("a1"), K("a2"), K("a3"), reply({ id: "live", reasoning: "x", finish: null })], on)?.marker.to).toBe("a3")
  })

  test("triggerCount is configurable; below 2 never detects", () => {
    expect(detectStreak([user("u1"), K("a1"), K("a2")], { ...on, triggerCount: 2 })?.marker.from).toBe("a1")
    expect(detectStreak([user("u1"), K("a1")], { ...on, triggerCount: 1 })).toBeNull()
  })
})
