/**
 * Buffers made on demand (growable.ts) against buffers made at full size up front: the same
 * verdicts at the same delta, on streams long enough that every ring grows to its capacity and
 * wraps before the long rule trips.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { NUMBER_RING, WORD_RING } from "./content-chunker.js"
import { EMPTY_FLOAT64, GROWTH, GuardBuffers, INITIAL_ENTRIES } from "./growable.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import { PeriodicRepeatMonitor } from "./periodic-repeat-monitor.js"
import { RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "./repeat-guard.js"
import { rng } from "./text.fixture.js"

setDefaultTimeout(60_000)

const SYLLABLES = "ka lo mi ne ru sa te vo zi pe da fu gi ho ja ku".split(" ")

/** A word from a vocabulary of ~4 000 made-up words, so shingles rarely recur by chance. */
const word = (r: () => number): string => {
  let w = ""
  for (let n = 2 + Math.floor(r() * 3); n > 0; n--) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]
  return w
}

/** Healthy prose with numbers, CJK and line breaks, about `chars` characters. */
const healthy = (r: () => number, chars: number): string => {
  const parts: Array<string> = []
  let length = 0
  while (length < chars) {
    const x = r()
    const part = x < 0.2 ? String(Math.floor(r() * 100_000)) : x < 0.23 ? "检查文件。" : x < 0.27 ? ".\n" : word(r)
    parts.push(part)
    length += part.length + 1
  }
  return parts.join(" ")
}

/**
 * Healthy stretches with a paragraph written twice now and then (a run starts, then breaks), then
 * a long loop and a short one. `loopAt`: where the long loop begins.
 */
const stream = (seed: number, healthyChars: number): { readonly text: string; readonly loopAt: number } => {
  const r = rng(seed)
  const pieces: Array<string> = []
  for (let written = 0; written < healthyChars; ) {
    const stretch = healthy(r, 2_000 + Math.floor(r() * 6_000))
    const echo = healthy(r, 50 + Math.floor(r() * 3_000))
    pieces.push(stretch, echo, echo)
    written += stretch.length + 2 * echo.length
  }
  // The loop: a block of 200 to 5 000 characters (up to ~150 chunks: periods past the first 64),
  // with a counter in it, written until both rules have had their say.
  const block = healthy(r, 200 + Math.floor(r() * 4_800))
  const loopAt = pieces.join(" ").length + 1
  for (let copy = 0; copy < 30; copy++) pieces.push(`step ${copy} ${block}`)
  pieces.push("Let me check the file again. ".repeat(40))
  return { text: pieces.join(" "), loopAt }
}

/** Every push's answer, as `at` (delta index) and the trip. */
const tripsOf = (text: string, options: RepeatGuardOptions, seed: number, guard = new RepeatGuard(options)): Array<{ at: number; trip: GuardTrip }> => {
  const r = rng(seed)
  const trips: Array<{ at: number; trip: GuardTrip }> = []
  let at = 0
  for (let from = 0; from < text.length; at++) {
    const size = 1 + Math.floor(r() * 200)
    const trip = guard.push(text.slice(from, from + size))
    if (trip !== null) trips.push({ at, trip })
    from += size
  }
  const last = guard.flush()
  if (last !== null) trips.push({ at, trip: last })
  return trips
}

const compare = (seed: number, long: Partial<LongRepeatOptions>, healthyChars: number) => {
  const { text, loopAt } = stream(seed, healthyChars)
  const onDemand = tripsOf(text, { long }, seed)
  const fullSize = tripsOf(text, { long, preallocate: true }, seed)
  expect(onDemand).toEqual(fullSize)
  return { trips: onDemand, before: text.slice(0, loopAt), loopAt }
}

describe("guard buffers made on demand give the verdicts of buffers made at full size", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    test(`seed ${seed}, default options: every ring grows and wraps before the long rule trips`, () => {
      const { trips, before, loopAt } = compare(seed, {}, 300_000)
      const long = trips.find((t) => t.trip.rule === "long")?.trip
      expect(long?.rule === "long" && long.char).toBeGreaterThanOrEqual(loopAt)
      // Before the loop, every ring went past its capacity: words and numbers (8 192 each), and
      // chunks (2·500 + 3; a chunk holds at most 96 characters).
      expect(before.match(/\d+/g)!.length).toBeGreaterThan(NUMBER_RING)
      expect(before.match(/[a-z]+/g)!.length).toBeGreaterThan(WORD_RING)
      expect(before.length).toBeGreaterThan(96 * 1_003)
      expect(trips.some((t) => t.trip.rule === "short")).toBe(true)
    })
  }

  test("loops that begin while the buffers are still growing (40 seeds)", () => {
    let longTrips = 0
    for (let seed = 100; seed < 140; seed++) {
      // Prefixes from 200 to 51 200 characters, as many below 2 000 as above 10 000: every growth step.
      const { trips } = compare(seed, {}, Math.floor(200 * 2 ** (rng(seed)() * 8)))
      longTrips += trips.filter((t) => t.trip.rule === "long").length
    }
    expect(longTrips).toBeGreaterThan(30)
  })

  for (const maxBlockChars of [600, 2_000]) {
    test(`maxBlockChars ${maxBlockChars}: capacities that are not a power of two, wrapped many times`, () => {
      for (const seed of [11, 12, 13]) {
        const { trips } = compare(seed, { maxBlockChars }, 60_000)
        expect(trips.some((t) => t.trip.rule === "long")).toBe(true)
      }
    })
  }
})

describe("a guard started over (reset) on the buffers it held gives a new guard's verdicts", () => {
  test("after streams that grew its buffers, tripped or ended mid-word (12 seeds, both rule sets)", () => {
    let trips = 0
    for (let seed = 200; seed < 212; seed++) {
      const options: RepeatGuardOptions = { exactRepeatsOnly: seed % 2 === 0 }
      const guard = new RepeatGuard(options)
      // The stream before: 200 to 51 200 characters, so it left buffers of every growth step, cut mid-word.
      const before = stream(seed, Math.floor(200 * 2 ** (rng(seed)() * 8))).text
      tripsOf(before.slice(0, before.length - 3), options, seed, guard)
      guard.reset()
      // Half the seeds write the same prose again: a stale entry left from the stream before would read as a recurrence.
      const text = seed % 4 < 2 ? healthy(rng(seed), 30_000) : stream(seed + 1_000, Math.floor(200 * 2 ** (rng(seed + 1)() * 8))).text
      if (seed % 4 < 2) tripsOf(text, options, seed + 1, guard), guard.reset()
      const got = tripsOf(text, options, seed, guard)
      expect(got).toEqual(tripsOf(text, options, seed))
      trips += got.length
    }
    expect(trips).toBeGreaterThan(5)
  })

  test("started over many times, it holds no more buffers than its longest stream needed", () => {
    const guard = new RepeatGuard()
    const held: Array<number> = []
    for (let round = 0; round < 30; round++) {
      tripsOf(stream(round, 20_000).text, {}, round, guard)
      held.push(bytesHeld(guard))
      guard.reset()
    }
    expect(held[29]).toBe(held[9]!)
  })
})

/** Bytes of the buffers a guard holds (its own and its parts'; GuardBuffers counts what it made). */
const bytesHeld = (value: unknown, seen = new Set<unknown>()): number => {
  if (value === null || typeof value !== "object" || seen.has(value)) return 0
  seen.add(value)
  if (value instanceof GuardBuffers) return value.heldBytes
  return Object.values(value).reduce((sum: number, v) => sum + bytesHeld(v, seen), 0)
}

/** Prose tokens (up to 6 000 at a time) between loops of periods 4 to 400 written 3 to 8 times. */
const tokenStream = (seed: number, length: number): Array<string> => {
  const r = rng(seed)
  const vocab = Array.from({ length: 60 }, () => word(r))
  const tokens: Array<string> = []
  while (tokens.length < length) {
    for (let n = Math.floor(r() * 6_000); n > 0; n--) tokens.push(vocab[Math.floor(r() * vocab.length)]!)
    const block = Array.from({ length: 4 + Math.floor(r() * r() * 400) }, () => vocab[Math.floor(r() * vocab.length)]!)
    for (let copy = 3 + Math.floor(r() * 6); copy > 0; copy--) tokens.push(...block)
  }
  return tokens
}

describe("the short-period monitor with buffers made on demand", () => {
  test("the same trip and holding period after every token as at full size, and the same snapshot (a window of 4 000: capacity 801)", () => {
    const options = { window: 4_000, threshold: 5, minBlock: 4, minDistinct: 3 }
    let trips = 0
    for (const seed of [21, 22, 23, 24]) {
      const tokens = tokenStream(seed, 30_000)
      const onDemand = new PeriodicRepeatMonitor(options)
      const fullSize = new PeriodicRepeatMonitor(options, new GuardBuffers(true))
      for (let k = 0; k < tokens.length; k++) {
        const got = onDemand.push(tokens[k]!)
        expect(got).toEqual(fullSize.push(tokens[k]!))
        if (got !== null) trips++
        if (onDemand.holdingPeriod !== fullSize.holdingPeriod) throw new Error(`seed ${seed}: holding period differs at token ${k}`)
        if (k === 100 || k === 700 || k === 5_000) expect(onDemand.snapshot()).toEqual(fullSize.snapshot())
      }
      expect(onDemand.internedTokens).toBe(fullSize.internedTokens)
    }
    expect(trips).toBeGreaterThan(8)
  })
})

describe("growable buffers", () => {
  test("start at INITIAL_ENTRIES, or the capacity if smaller, or full size when preallocated", () => {
    expect(new GuardBuffers().startLength(8_192)).toBe(INITIAL_ENTRIES)
    expect(new GuardBuffers().startLength(26)).toBe(26)
    expect(new GuardBuffers(true).startLength(8_192)).toBe(8_192)
  })

  test("grow GROWTH-fold up to the capacity, keep their entries, and fill the new ones", () => {
    const buffers = new GuardBuffers()
    const grown = buffers.grown.bind(buffers)
    const a = Float64Array.from({ length: 64 }, (_, i) => i)
    const b = grown(a, 64, 100_003, -1)
    expect(b.length).toBe(64 * GROWTH)
    expect(Array.from(b.subarray(0, 64))).toEqual(Array.from(a))
    expect(b[64]).toBe(-1)
    expect(b[b.length - 1]).toBe(-1)
    expect(grown(b, 64 * GROWTH, 100_003).length).toBe(64 * GROWTH * GROWTH)
    expect(grown(b, 90_000, 100_003).length).toBe(100_003)
    expect(grown(a, 64, 1_003).length).toBe(1_003)
    expect(grown(b, 5, 100_003)).toBe(b)
    expect(grown(EMPTY_FLOAT64, 3, 1_003).length).toBe(INITIAL_ENTRIES)
    const full = new Int32Array(79)
    expect(grown(full, 200, 79)).toBe(full)
  })

  test("recycled, a buffer comes back for the next request of its type and length, every entry the fill asked for", () => {
    const buffers = new GuardBuffers()
    const a = buffers.make(Float64Array, 64, -1)
    const b = buffers.make(Int32Array, 64)
    a.fill(7)
    b.fill(9)
    const grownA = buffers.grown(a, 64, 100_003, -Infinity)
    expect(buffers.heldBytes).toBe(64 * 8 + 64 * 4 + 64 * GROWTH * 8)
    buffers.recycle()
    const again = buffers.make(Float64Array, 64, -Infinity)
    expect(again).toBe(a)
    expect(Array.from(again).every((x) => x === -Infinity)).toBe(true)
    expect(buffers.make(Int32Array, 64)).toBe(b)
    expect(Array.from(b).every((x) => x === 0)).toBe(true)
    const regrown = buffers.grown(again.fill(3), 64, 100_003)
    expect(regrown).toBe(grownA)
    expect(Array.from(regrown.subarray(0, 64)).every((x) => x === 3)).toBe(true)
    expect(Array.from(regrown.subarray(64)).every((x) => x === 0)).toBe(true)
    // Nothing more was made: every request was met from what the first round left.
    expect(buffers.heldBytes).toBe(64 * 8 + 64 * 4 + 64 * GROWTH * 8)
    expect(buffers.make(Float64Array, 64)).not.toBe(a)
  })

  test("a new guard holds a small share of the buffer bytes of one made at full size", () => {
    const bytes = (value: unknown, seen = new Set<unknown>()): number => {
      if (value === null || typeof value !== "object" || seen.has(value)) return 0
      seen.add(value)
      if (ArrayBuffer.isView(value)) return value.byteLength
      return Object.values(value).reduce((sum: number, v) => sum + bytes(v, seen), 0)
    }
    const onDemand = bytes(new RepeatGuard())
    const fullSize = bytes(new RepeatGuard({ preallocate: true }))
    expect(fullSize).toBeGreaterThan(250_000)
    expect(onDemand).toBeLessThan(fullSize / 4)
  })
})
