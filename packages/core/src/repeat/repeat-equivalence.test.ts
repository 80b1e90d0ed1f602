/**
 * The incremental monitor against the literal rescan (naive-rescan.ts), token by token: the
 * trip (token index, smallest period, repeats) and the holding verdict after every token must
 * be identical. Inputs are built to sit on the edges of the rule.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import fc from "fast-check"
import type { RepeatOptions } from "./repeat-options.js"
import { DEFAULT_REPEAT_OPTIONS, maxRepeatPeriod, validateRepeatOptions } from "./repeat-options.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { NaiveRescanMonitor } from "./naive-rescan.js"
import { RepeatGuard } from "./repeat-guard.js"
import { scanText } from "./scan.js"
import { tokenize } from "./tokenizer.js"

// Each suite is sized to run well under a second alone; the generous timeout keeps a loaded CI machine from failing it.
setDefaultTimeout(30_000)

const SEED = 20261129

/** Feeds both monitors and compares every answer; returns the number of trips seen. */
const assertSameAsRescan = (options: RepeatOptions, input: ReadonlyArray<string>): number => {
  // One string instance per distinct token only speeds up the rescan's comparisons.
  const canonical = new Map<string, string>()
  const tokens = input.map((t) => canonical.get(t) ?? (canonical.set(t, t), t))
  const fast = new PeriodicRepeatMonitor(options)
  const naive = new NaiveRescanMonitor(options)
  let tripCount = 0
  for (let k = 0; k < tokens.length; k++) {
    const got = fast.push(tokens[k]!)
    const want = naive.push(tokens[k]!)
    if (want !== null) tripCount++
    if (got?.token !== want?.token || got?.period !== want?.period || got?.repeats !== want?.repeats ||
        fast.holdingPeriod !== naive.holdingPeriod) {
      throw new Error(
        `differs at token ${k}: fast ${JSON.stringify([got, fast.holdingPeriod])} ` +
          `naive ${JSON.stringify([want, naive.holdingPeriod])} options ${JSON.stringify(options)}`
      )
    }
  }
  return tripCount
}

/** Small settings, so windows slide often and many periods and thresholds get exercised. */
const smallOptions: fc.Arbitrary<RepeatOptions> = fc
  .record({
    threshold: fc.integer({ min: 2, max: 6 }),
    minBlock: fc.integer({ min: 1, max: 5 }),
    slack: fc.integer({ min: 0, max: 40 }),
    minDistinct: fc.integer({ min: 1, max: 4 })
  })
  .map(({ threshold, minBlock, slack, minDistinct }) => {
    const window = minBlock * threshold + slack
    return { window, threshold, minBlock, minDistinct: Math.min(minDistinct, Math.floor(window / threshold)) }
  })

const symbol = (alphabet: number) => fc.integer({ min: 0, max: alphabet - 1 }).map((n) => "abcdefgh中文。"[n]!)

/** A sequence made of prose stretches and loops whose repeat count sits around the threshold. */
const segmentsFor = (o: RepeatOptions): fc.Arbitrary<Array<string>> => {
  const maxP = maxRepeatPeriod(o)
  const prose = fc.integer({ min: 1, max: 11 }).chain((alphabet) =>
    fc.array(symbol(alphabet), { maxLength: 2 * o.window, size: "max" })
  )
  const loop = fc
    .record({
      length: fc.integer({ min: 1, max: maxP + 3 }), // also blocks longer than window/threshold
      alphabet: fc.integer({ min: 1, max: 6 }), // low-distinct blocks too
      repeats: fc.oneof(
        fc.constantFrom(o.threshold - 1, o.threshold, o.threshold + 1),
        fc.integer({ min: 1, max: 2 * o.threshold + 2 })
      ),
      tail: fc.nat()
    })
    .chain(({ length, alphabet, repeats, tail }) =>
      fc.array(symbol(alphabet), { minLength: length, maxLength: length }).map((block) => [
        ...Array.from({ length: repeats }, () => block).flat(),
        ...block.slice(0, tail % length)
      ])
    )
  return fc.array(fc.oneof(prose, loop, loop), { minLength: 1, maxLength: 5 }).map((parts) => parts.flat())
}

describe("PeriodicRepeatMonitor equals the rescan", () => {
  test("small settings, prose and near-threshold loops (600 inputs)", () => {
    let trips = 0
    fc.assert(
      fc.property(smallOptions.chain((o) => fc.tuple(fc.constant(o), segmentsFor(o))), ([o, tokens]) => {
        trips += assertSameAsRescan(o, tokens)
      }),
      { numRuns: 600, seed: SEED }
    )
    expect(trips).toBeGreaterThan(100) // the generator really reaches the tripping side
  })

  test("small settings, random strings over 1–3 symbols (400 inputs)", () => {
    fc.assert(
      fc.property(
        smallOptions,
        fc.integer({ min: 1, max: 3 }).chain((a) => fc.array(symbol(a), { maxLength: 150, size: "max" })),
        (o, tokens) => {
          assertSameAsRescan(o, tokens)
        }
      ),
      { numRuns: 400, seed: SEED + 1 }
    )
  })

  test("every valid option combination on a tiny grid, on loops of every length", () => {
    let combos = 0
    for (let window = 2; window <= 16; window++)
      for (let threshold = 2; threshold <= 5; threshold++)
        for (let minBlock = 1; minBlock <= 4; minBlock++)
          for (let minDistinct = 1; minDistinct <= 3; minDistinct++) {
            const o = { window, threshold, minBlock, minDistinct }
            if (validateRepeatOptions(o).length > 0) continue
            combos++
            for (let p = 1; p <= 6; p++) {
              const block = Array.from({ length: p }, (_, i) => "abc"[i % 3]!)
              const loop = Array.from({ length: threshold + 1 }, () => block).flat()
              assertSameAsRescan(o, [...loop, "z", ...loop])
            }
          }
    expect(combos).toBeGreaterThan(100)
  })
})

// Default settings on realistic text: words, CJK, mixed case and whitespace, loops of
// 18–22 repeats after prefixes that push the loop past the 500-token window.
const VOCAB = ["the", "File", "LET", "me", "check", "test", "again", "Run", "fix", "it", "now", "ok",
  "error", "line", "42", "foo()", "{", "}", "检查", "文件", "我再", "看一下", "。", "，"]
const SPACE = ["", " ", " ", "  ", "\n", "\t", "\u3000"]
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x80000000
}
const realisticText = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  prefix: fc.integer({ min: 0, max: 700 }),
  sentence: fc.integer({ min: 3, max: 30 }),
  repeats: fc.constantFrom(18, 19, 20, 20, 21, 22),
  suffix: fc.integer({ min: 0, max: 40 })
}).map(({ seed, prefix, sentence, repeats, suffix }) => {
  const r = rng(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const cased = (w: string) => (r() < 0.3 ? w.toUpperCase() : r() < 0.5 ? w.toLowerCase() : w)
  const words = (n: number) => Array.from({ length: n }, () => pick(VOCAB))
  const join = (ws: ReadonlyArray<string>) => ws.map((w) => cased(w) + (pick(SPACE) || " ")).join("")
  const body = words(sentence)
  // Each copy is re-cased and re-spaced: the tokens repeat, the characters do not.
  return join(words(prefix)) + Array.from({ length: repeats }, () => join(body)).join("") + join(words(suffix))
})

describe("default settings on realistic text", () => {
  test("tokens of generated text: monitor equals rescan (20 inputs)", () => {
    let trips = 0
    fc.assert(
      fc.property(realisticText, (text) => {
        trips += assertSameAsRescan(DEFAULT_REPEAT_OPTIONS, tokenize(text))
      }),
      { numRuns: 20, seed: SEED + 2 }
    )
    expect(trips).toBeGreaterThan(5)
  }, 60_000)

  test("RepeatGuard on random chunking and scanText give the rescan's first trip (20 inputs)", () => {
    let tripped = 0
    fc.assert(
      fc.property(realisticText, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }), (text, sizes) => {
        const naive = new NaiveRescanMonitor()
        let want = null
        for (const t of tokenize(text)) {
          const trip = naive.push(t)
          if (trip !== null) {
            want = trip
            break
          }
        }
        // The short-period rule alone: the long rule (on by default) may trip earlier and is tested apart.
        const guard = new RepeatGuard({ long: { enabled: false } })
        let got = null
        for (let at = 0, i = 0; at < text.length && got === null; i++) {
          const size = sizes[i % sizes.length]!
          got = guard.push(text.slice(at, at + size))
          at += size
        }
        got ??= guard.flush()
        if (want !== null) tripped++
        expect(got).toEqual(want === null ? null : { rule: "short", ...want })
        expect(scanText(text)).toEqual({ repeat: want !== null, token: want?.token ?? null, period: want?.period ?? null })
      }),
      { numRuns: 20, seed: SEED + 3 }
    )
    expect(tripped).toBeGreaterThan(5)
  }, 60_000)
})
