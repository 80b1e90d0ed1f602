import { describe, expect, test } from "bun:test"
import { failureTally, tallyImproved } from "./failure-tally.js"

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
