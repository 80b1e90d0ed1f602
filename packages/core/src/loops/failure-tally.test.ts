import { describe, expect, test } from "bun:test"
import { failureTally, measureRecords, measuresOf, tallyImproved } from "./failure-tally.js"

describe("failureTally", () => {
  test("reads the summaries test runners and compilers print", () => {
    expect(failureTally("FAIL src/a.test.ts\nTests:       12 failed, 40 passed, 52 total")).toEqual({ failing: 12, passing: 40 })
    expect(failureTally("  40 passing (2s)\n  3 failing\n")).toEqual({ failing: 3, passing: 40 })
    expect(failureTally("===== 2 failed, 98 passed in 1.20s =====")).toEqual({ failing: 2, passing: 98 })
    expect(failureTally("FAILED (failures=2, errors=1)")).toEqual({ failing: 3, passing: 0 })
    expect(failureTally("Found 5 errors in 2 files.")).toEqual({ failing: 5, passing: 0 })
    expect(failureTally("test result: FAILED. 3 passed; 1 failed; 0 ignored")).toEqual({ failing: 1, passing: 3 })
    expect(failureTally(" 31 pass\n 29 fail\n 120 expect() calls")).toEqual({ failing: 29, passing: 31 })
  })
  test("an output without counts has no tally; a line number is no count", () => {
    expect(failureTally("Traceback (most recent call last):\n  File \"a.py\", line 42\nValueError: bad")).toBeNull()
    expect(failureTally("")).toBeNull()
  })
  test("progress is fewer failing, or as many and more passing; unknown is none", () => {
    expect(tallyImproved({ failing: 3, passing: 1 }, { failing: 2, passing: 0 })).toBe(true)
    expect(tallyImproved({ failing: 3, passing: 1 }, { failing: 3, passing: 2 })).toBe(true)
    expect(tallyImproved({ failing: 3, passing: 1 }, { failing: 3, passing: 1 })).toBe(false)
    expect(tallyImproved({ failing: 2, passing: 9 }, { failing: 3, passing: 9 })).toBe(false)
    expect(tallyImproved(null, { failing: 0, passing: 9 })).toBe(false)
  })
})

describe("measures", () => {
  test("named values with a unit, clock readings left out", () => {
    expect([...measuresOf("./check.sh: p99=73.2ms budget=50ms FAIL\nSize limit: 150 kB\nSize: 212.4 kB\nTime: 3.2s took 1.5s")]).toEqual([
      ["p99 ms", 73.2],
      ["budget ms", 50],
      ["size limit kb", 150],
      ["size kb", 212.4]
    ])
    expect(measuresOf("line 42: error at src/a.py:17").size).toBe(0)
  })
  test("a record is a value past every earlier one in the direction it first moved", () => {
    const runs = (vs: ReadonlyArray<number>) => measureRecords(vs.map((v) => new Map([["p99 ms", v]])))
    expect(runs([73, 70, 66, 63])).toEqual([false, true, true, true])
    expect(runs([60, 62, 60, 62, 63])).toEqual([false, true, false, false, true])
    expect(runs([5, 5, 5])).toEqual([false, false, false])
  })
})
