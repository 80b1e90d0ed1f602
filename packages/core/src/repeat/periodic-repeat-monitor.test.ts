import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { RepeatOptions } from "./repeat-options.js"
import type { RepeatTrip } from "./periodic-repeat-monitor.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { NaiveRescanMonitor } from "./naive-rescan.js"
import { tokenize } from "./tokenizer.js"

const SENTENCE = "我再检查一下这个文件。" // 11 tokens

const trips = (monitor: { push(t: string): RepeatTrip | null }, tokens: ReadonlyArray<string>) => {
  const out: Array<RepeatTrip> = []
  for (const t of tokens) {
    const trip = monitor.push(t)
    if (trip !== null) out.push(trip)
  }
  return out
}

const words = (n: number, prefix = "w") => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const repeat = <T>(block: ReadonlyArray<T>, times: number): Array<T> => Array.from({ length: times }, () => block).flat()

describe("PeriodicRepeatMonitor: the documented examples", () => {
  test("an 11-token sentence said 19 times does not trip", () => {
    expect(trips(new PeriodicRepeatMonitor(), tokenize(SENTENCE.repeat(19)))).toEqual([])
  })

  test("said 20 times it trips on the last token with period 11", () => {
    expect(trips(new PeriodicRepeatMonitor(), tokenize(SENTENCE.repeat(20)))).toEqual([
      { token: 219, period: 11, repeats: 20 }
    ])
  })

  test("one CJK character 200 times does not trip (1 distinct token)", () => {
    expect(trips(new PeriodicRepeatMonitor(), tokenize("哈".repeat(200)))).toEqual([])
  })

  test("a block of 2 distinct tokens does not trip, 3 does", () => {
    expect(trips(new PeriodicRepeatMonitor(), repeat(["a", "b", "a", "b"], 30))).toEqual([])
    expect(trips(new PeriodicRepeatMonitor(), repeat(["a", "b", "c", "a"], 30))).toEqual([
      { token: 79, period: 4, repeats: 20 }
    ])
  })

  test("a block longer than window/threshold (26 > 25) never trips", () => {
    expect(trips(new PeriodicRepeatMonitor(), repeat(words(26), 40))).toEqual([])
    expect(trips(new PeriodicRepeatMonitor(), repeat(words(25), 20))).toEqual([{ token: 499, period: 25, repeats: 20 }])
  })

  test("a loop after a long prefix trips at the same offset (the window slides)", () => {
    const prefix = words(1234, "p")
    expect(trips(new PeriodicRepeatMonitor(), [...prefix, ...tokenize(SENTENCE.repeat(20))])).toEqual([
      { token: 1234 + 219, period: 11, repeats: 20 }
    ])
  })

  test("the smallest holding period is reported", () => {
    // Block of 4 with period-4 structure; period 8 would also hold later but 4 holds first.
    expect(trips(new PeriodicRepeatMonitor(), repeat(["a", "b", "c", "d"], 40))[0]).toEqual({ token: 79, period: 4, repeats: 20 })
  })
})

describe("PeriodicRepeatMonitor: behaviour over time", () => {
  const small: Partial<RepeatOptions> = { window: 20, threshold: 3, minBlock: 2, minDistinct: 2 }

  test("a continuing loop trips once; after it leaves the window the next loop trips again", () => {
    const m = new PeriodicRepeatMonitor(small)
    const loop = repeat(["a", "b", "c"], 6) // trips at its 9th token
    const first = trips(m, loop)
    expect(first).toEqual([{ token: 8, period: 3, repeats: 3 }])
    expect(m.holdingPeriod).toBe(3)
    trips(m, words(25))
    expect(m.holdingPeriod).toBeNull()
    const before = m.tokensSeen
    expect(trips(m, repeat(["x", "y"], 3))).toEqual([{ token: before + 5, period: 2, repeats: 3 }])
  })

  test("reset clears everything", () => {
    const m = new PeriodicRepeatMonitor(small)
    trips(m, repeat(["a", "b"], 2))
    m.reset()
    expect(m.tokensSeen).toBe(0)
    expect(m.internedTokens).toBe(0)
    // Without reset the next "a b" would complete 3 copies; after reset it needs all of them again.
    expect(trips(m, ["a", "b"])).toEqual([])
    expect(trips(m, ["a", "b", "a", "b"])).toEqual([{ token: 5, period: 2, repeats: 3 }])
  })

  test("memory stays bounded: the intern table never outgrows 4 × the kept tokens", () => {
    const m = new PeriodicRepeatMonitor()
    let most = 0
    for (let i = 0; i < 50_000; i++) {
      m.push(`t${i}`)
      most = Math.max(most, m.internedTokens)
    }
    expect(most).toBeLessThanOrEqual(4 * 26)
    expect(m.tokensSeen).toBe(50_000)
  })

  test("snapshot is plain JSON and restore continues exactly", () => {
    const alphabet = fc.constantFrom("a", "b", "c", "d")
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }), fc.nat(), (tokens, cut) => {
        const options = { window: 24, threshold: 3, minBlock: 2, minDistinct: 2 }
        const whole = new PeriodicRepeatMonitor(options)
        const expected = tokens.map((t) => [whole.push(t), whole.holdingPeriod])
        const at = cut % (tokens.length + 1)
        const first = new PeriodicRepeatMonitor(options)
        const got: Array<unknown> = tokens.slice(0, at).map((t) => [first.push(t), first.holdingPeriod])
        const restored = PeriodicRepeatMonitor.restore(JSON.parse(JSON.stringify(first.snapshot())))
        for (const t of tokens.slice(at)) got.push([restored.push(t), restored.holdingPeriod])
        expect(got).toEqual(expected)
      }),
      { numRuns: 500 }
    )
  })

  test("restore rejects a state that does not fit its options", () => {
    const state = new PeriodicRepeatMonitor().snapshot()
    expect(() => PeriodicRepeatMonitor.restore({ ...state, runs: [1] })).toThrow(RangeError)
  })

  test("invalid options throw, naming the field", () => {
    expect(() => new PeriodicRepeatMonitor({ threshold: 1 })).toThrow(/threshold/)
    expect(() => new PeriodicRepeatMonitor({ window: 10 })).toThrow(/window/)
  })
})

describe("naive reference agrees with the documented examples too", () => {
  test("19 vs 20 repeats, 200 × 哈", () => {
    expect(trips(new NaiveRescanMonitor(), tokenize(SENTENCE.repeat(19)))).toEqual([])
    expect(trips(new NaiveRescanMonitor(), tokenize(SENTENCE.repeat(20)))).toEqual([{ token: 219, period: 11, repeats: 20 }])
    expect(trips(new NaiveRescanMonitor(), tokenize("哈".repeat(200)))).toEqual([])
  })
})
