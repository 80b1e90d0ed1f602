import { describe, expect, test } from "bun:test"
import { RepeatGuard } from "./repeat-guard.js"
import { scanText } from "./scan.js"

const SENTENCE = "我再检查一下这个文件。" // 11 tokens
const LOOP_EN = "Let me check the file again. " // 6 tokens

describe("RepeatGuard", () => {
  test("holds a partial word until it is complete; tokensSeen counts completed tokens", () => {
    const guard = new RepeatGuard()
    expect(guard.push("hel")).toBeNull()
    expect(guard.tokensSeen).toBe(0)
    expect(guard.push("lo wor")).toBeNull()
    expect(guard.tokensSeen).toBe(1)
    expect(guard.flush()).toBeNull()
    expect(guard.tokensSeen).toBe(2)
  })

  test("the delta that completes the 20th copy returns the trip scanText reports", () => {
    const guard = new RepeatGuard()
    const text = LOOP_EN.repeat(25)
    const expected = scanText(text)
    expect(expected).toEqual({ repeat: true, token: 6 * 20 - 1, period: 6 })
    let trip = null
    let deltasFed = 0
    for (let at = 0; at < text.length && trip === null; at += 7) {
      trip = guard.push(text.slice(at, at + 7))
      deltasFed++
    }
    expect(trip).toEqual({ rule: "short", token: expected.token!, period: expected.period!, repeats: 20 })
    // The trip came as soon as its token was complete, not at the end of the text.
    expect(deltasFed * 7).toBeLessThan(text.length)
  })

  test("a trip on the last word without trailing space comes from flush", () => {
    const guard = new RepeatGuard()
    const text = LOOP_EN.repeat(20).trimEnd()
    expect(guard.push(text)).toBeNull()
    expect(guard.flush()).toEqual({ rule: "short", token: 119, period: 6, repeats: 20 })
  })

  test("reasoning and text deltas feed one guard: a loop across both trips", () => {
    const guard = new RepeatGuard()
    const reasoning = SENTENCE.repeat(12)
    const text = SENTENCE.repeat(8)
    expect(guard.push(reasoning)).toBeNull()
    expect(guard.flush()).toBeNull()
    expect(guard.push(text)).toEqual({ rule: "short", token: 219, period: 11, repeats: 20 })
  })

  test("tokens after a trip in the same delta are still fed; reset starts over", () => {
    const guard = new RepeatGuard()
    expect(guard.push(SENTENCE.repeat(21))).toEqual({ rule: "short", token: 219, period: 11, repeats: 20 })
    expect(guard.tokensSeen).toBe(231)
    // The loop continues: no second trip while it still holds.
    expect(guard.push(SENTENCE)).toBeNull()
    guard.reset()
    expect(guard.tokensSeen).toBe(0)
    expect(guard.push(SENTENCE.repeat(19))).toBeNull()
  })

  test("options are passed through", () => {
    const guard = new RepeatGuard({ window: 40, threshold: 3, minBlock: 2, minDistinct: 2 })
    expect(guard.options.threshold).toBe(3)
    expect(guard.push("a b a b a b ")).toEqual({ rule: "short", token: 5, period: 2, repeats: 3 })
  })
})
