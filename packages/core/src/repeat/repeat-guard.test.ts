import { describe, expect, test } from "bun:test"
import { RepeatGuard, type RepeatGuardOptions } from "./repeat-guard.js"
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

describe("exactRepeatsOnly (a call's arguments)", () => {
  const feed = (text: string, options: RepeatGuardOptions) => {
    const guard = new RepeatGuard(options)
    for (let i = 0; i < text.length; i += 64) {
      const trip = guard.push(text.slice(i, i + 64))
      if (trip !== null) return trip
    }
    return guard.flush()
  }
  test("numbered rows and rising ids are data: no trip; a fragment written over and over trips", () => {
    const rows = Array.from({ length: 600 }, (_, i) => `log line ${i}: compiling module ${i}`).join("\n")
    const fixtures = Array.from({ length: 200 }, (_, i) => `  { "id": ${i + 1}, "name": "user ${i + 1}", "email": "user${i + 1}@example.com", "active": true },`).join("\n")
    expect(feed(rows, {})).not.toBeNull()
    expect(feed(rows, { exactRepeatsOnly: true })).toBeNull()
    expect(feed(fixtures, { exactRepeatsOnly: true })).toBeNull()
    const fragment = "function step() {\n  counter += 1\n  render(counter)\n}\n\n"
    expect(feed(fragment.repeat(300), { exactRepeatsOnly: true })).not.toBeNull()
    const paragraph = "We write the configuration again because the previous write did not include the cache settings that the server needs at start. "
    expect(feed(paragraph.repeat(60), { exactRepeatsOnly: true })).toMatchObject({ rule: "long" })
  })
})
