import { describe, expect, spyOn, test } from "bun:test"
import { ArgumentsGuard, argumentsGuardOptions } from "./arguments-guard.js"
import { NO_POOL, PooledGuard, RepeatGuardPool } from "./guard-pool.js"
import { RepeatGuard, type GuardTrip } from "./repeat-guard.js"

const LOOP = "I will check the configuration file once more to be sure. ".repeat(60)

/** The first trip of `text` fed in 37-character pieces, and the piece it came at. */
const firstTrip = (guard: RepeatGuard, text: string): { at: number; trip: GuardTrip } | null => {
  for (let at = 0; at * 37 < text.length; at++) {
    const trip = guard.push(text.slice(at * 37, at * 37 + 37))
    if (trip !== null) return { at, trip }
  }
  return null
}

describe("RepeatGuardPool", () => {
  test("a guard given back is taken again, started over: it trips where a new guard does", () => {
    const pool = new RepeatGuardPool({})
    const guard = pool.take()
    const fresh = firstTrip(new RepeatGuard(), LOOP)
    expect(fresh).not.toBeNull()
    expect(firstTrip(guard, "a healthy start, cut in the middle of a wo" + LOOP)).not.toBeNull()
    pool.give(guard)
    const again = pool.take()
    expect(again).toBe(guard)
    expect(firstTrip(again, LOOP)).toEqual(fresh)
    expect(pool.take()).not.toBe(guard)
  })

  test("given twice, a guard is kept once (two streams never share one)", () => {
    const pool = new RepeatGuardPool({})
    const guard = pool.take()
    pool.give(guard)
    pool.give(guard)
    expect(pool.idleCount).toBe(1)
    expect(pool.take()).toBe(guard)
    expect(pool.take()).not.toBe(guard)
  })

  test("keeps at most maxIdle guards, and lets go of one whose buffers grew past maxGuardBytes", () => {
    const pool = new RepeatGuardPool({}, { maxIdle: 2, maxIdleBytes: 1 << 30, maxGuardBytes: 64 * 1024 })
    const guards = [pool.take(), pool.take(), pool.take()]
    for (const g of guards) pool.give(g)
    expect(pool.idleCount).toBe(2)
    const big = pool.take()
    // Distinct words: every ring grows (tens of thousands of entries) and nothing trips.
    for (let k = 0; k < 40_000; k++) big.push(`w${k.toString(36)} `)
    expect(big.heldBytes).toBeGreaterThan(64 * 1024)
    pool.give(big)
    expect(pool.idleCount).toBe(1)
  })

  test("keeps idle guards up to maxIdleBytes of buffers together, and counts what it hands out again", () => {
    const pool = new RepeatGuardPool({}, { maxIdle: 100, maxIdleBytes: 3 * 60 * 1024, maxGuardBytes: 1 << 30 })
    const guards = Array.from({ length: 5 }, () => pool.take())
    // About 1 KB of distinct words each: about 50 KB of buffers, so three fit and two do not.
    for (const g of guards) for (let k = 0; k < 200; k++) g.push(`w${k.toString(36)} `)
    for (const g of guards) pool.give(g)
    expect(pool.idleCount).toBe(3)
    expect(pool.idleHeldBytes).toBe(guards.slice(0, 3).reduce((sum, g) => sum + g.heldBytes, 0))
    pool.take()
    expect(pool.idleHeldBytes).toBe(guards.slice(0, 2).reduce((sum, g) => sum + g.heldBytes, 0))
  })

  test("NO_POOL keeps nothing", () => {
    const pool = new RepeatGuardPool({}, NO_POOL)
    const guard = pool.take()
    pool.give(guard)
    expect(pool.idleCount).toBe(0)
    expect(pool.take()).not.toBe(guard)
  })
})

describe("PooledGuard", () => {
  test("takes a guard at the first push only, and gives it back on release, started over", () => {
    const pool = new RepeatGuardPool({})
    const idle = pool.take()
    pool.give(idle)
    const lease = new PooledGuard(pool)
    lease.release()
    expect(pool.idleCount).toBe(1)
    expect(lease.push("text", "a first piece")).toBeNull()
    expect(pool.idleCount).toBe(0)
    lease.release()
    expect([pool.idleCount, pool.take()]).toEqual([1, idle])
  })

  test("a new key ends the word in progress first (flush), and a trip that finds is returned in place of the push", () => {
    const pool = new RepeatGuardPool({})
    const guard = pool.take()
    pool.give(guard)
    const flush = spyOn(guard, "flush")
    const push = spyOn(guard, "push")
    const lease = new PooledGuard(pool)
    lease.push("text", "one ")
    lease.push("text", "two ")
    expect(flush).not.toHaveBeenCalled()
    const trip = { rule: "long", detail: "flushed" } as unknown as GuardTrip
    flush.mockReturnValueOnce(trip)
    expect(lease.push("reasoning", "three")).toBe(trip)
    expect([flush.mock.calls.length, push.mock.calls.length]).toEqual([1, 2])
    lease.push("reasoning", "four")
    expect(flush.mock.calls.length).toBe(1)
  })
})

describe("ArgumentsGuard", () => {
  test("takes its guard from the pool at the first argument and gives it back on release", () => {
    const pool = new RepeatGuardPool(argumentsGuardOptions({}))
    const args = new ArgumentsGuard(pool)
    expect(pool.idleCount).toBe(0)
    args.release()
    expect(pool.idleCount).toBe(0)
    const line = '{"content": "' + "row of the same text again and again\\n".repeat(200) + '"}'
    let tripped: GuardTrip | null = null
    for (let at = 0; at < line.length && tripped === null; at += 40) tripped = args.push("call_1", line.slice(at, at + 40))
    expect(tripped).not.toBeNull()
    args.release()
    expect(pool.idleCount).toBe(1)
    // The next stream starts over: a healthy call does not trip on what the last one wrote.
    expect(args.push("call_2", '{"command": "ls -la"}')).toBeNull()
    expect(pool.idleCount).toBe(0)
  })

  test("ArgumentsGuard.of: exact repeats only, and no guard kept", () => {
    const args = ArgumentsGuard.of({})
    // Numbered rows (data asked for) do not trip the long rule when only exact repeats count.
    const rows = Array.from({ length: 300 }, (_, i) => `{"id": ${i}, "name": "fixture row", "active": true},`).join("\\n")
    let tripped: GuardTrip | null = null
    for (let at = 0; at < rows.length && tripped === null; at += 50) tripped = args.push("c", rows.slice(at, at + 50))
    expect(tripped).toBeNull()
  })
})

describe("ArgumentsGuard across deltas", () => {
  test("an escape split between two deltas (`\\` then `n`) is read as the line break it is", () => {
    const line = '{"content": "' + "row of the same text again and again\\n".repeat(200) + '"}'
    // Pieces of 40 characters cut the 38-character lines at a different place each time.
    const split = ArgumentsGuard.of({})
    let tripped: GuardTrip | null = null
    for (let at = 0; at < line.length && tripped === null; at += 40) tripped = split.push("c", line.slice(at, at + 40))
    expect(tripped).not.toBeNull()
  })
})

describe("arguments read the same whatever the deltas", () => {
  test("code that prints a line break (an escaped backslash before an n) trips at the same place in deltas of 1, 2, 3, 16 and 40 characters", () => {
    const code = Array.from({ length: 120 }, () => 'fprintf(out, "%s\\n", row);\n').join("")
    const args = JSON.stringify({ path: "gen.c", content: code })
    const tripIn = (size: number): string => {
      const guard = ArgumentsGuard.of({})
      let trip: GuardTrip | null = null
      for (let at = 0; at < args.length && trip === null; at += size) trip = guard.push("c", args.slice(at, at + size))
      return JSON.stringify(trip)
    }
    // Whole, the short rule's trip in the same push is returned first (RepeatGuard.push): compared among the streamed sizes.
    const first = tripIn(1)
    expect(first).toContain('"rule":"long"')
    for (const size of [2, 3, 16, 40]) expect(tripIn(size)).toBe(first)
  })
})
