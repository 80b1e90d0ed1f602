import { describe, expect, test } from "bun:test"
import { DEFAULT_REPEAT_OPTIONS, checkedRepeatOptions, maxRepeatPeriod, resolveRepeatOptions, validateRepeatOptions } from "./repeat-options.js"
import { checkedLongRepeatOptions, DEFAULT_LONG_REPEAT_OPTIONS } from "./long-repeat-options.js"

const fieldsOf = (o: Parameters<typeof validateRepeatOptions>[0]) => validateRepeatOptions(o).map((e) => e.field)

describe("repeat options", () => {
  test("defaults are the documented ones and valid", () => {
    expect(DEFAULT_REPEAT_OPTIONS).toEqual({ window: 500, threshold: 20, minBlock: 4, minDistinct: 3 })
    expect(validateRepeatOptions(DEFAULT_REPEAT_OPTIONS)).toEqual([])
    expect(maxRepeatPeriod(DEFAULT_REPEAT_OPTIONS)).toBe(25)
  })

  test("resolve fills only the missing fields", () => {
    expect(resolveRepeatOptions({ threshold: 5 })).toEqual({ ...DEFAULT_REPEAT_OPTIONS, threshold: 5 })
  })

  test("each bad field is named", () => {
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, threshold: 1 })).toEqual(["threshold"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 0 })).toEqual(["window"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, minBlock: 0 })).toEqual(["minBlock"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, minDistinct: 0 })).toEqual(["minDistinct"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 2.5 })).toEqual(["window"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 1_000_001 })).toEqual(["window"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 1_000_000 })).toEqual([])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, threshold: Number.NaN })).toEqual(["threshold"])
    expect(fieldsOf({ window: -1, threshold: 0, minBlock: 0, minDistinct: 0 })).toEqual([
      "window", "threshold", "minBlock", "minDistinct"
    ])
    expect(validateRepeatOptions({ ...DEFAULT_REPEAT_OPTIONS, threshold: 1 })[0]!.message).toContain("threshold")
  })

  test("window must hold threshold copies of the shortest block", () => {
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 79 })).toEqual(["window"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, window: 80 })).toEqual([])
  })

  test("minDistinct above the longest period could never hold", () => {
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, minDistinct: 26 })).toEqual(["minDistinct"])
    expect(fieldsOf({ ...DEFAULT_REPEAT_OPTIONS, minDistinct: 25 })).toEqual([])
  })

  test("checkedRepeatOptions throws a RangeError naming the field", () => {
    expect(() => checkedRepeatOptions({ threshold: 1 })).toThrow(/threshold/)
    expect(checkedRepeatOptions({})).toEqual(DEFAULT_REPEAT_OPTIONS)
  })
})

describe("long repeat options", () => {
  test("one options object is resolved once: a guard per stream gets the same resolved options; a bad one throws every time", () => {
    const options = { copies: 4 }
    const first = checkedLongRepeatOptions(options)
    expect(first).toEqual({ ...DEFAULT_LONG_REPEAT_OPTIONS, copies: 4 })
    expect(checkedLongRepeatOptions(options)).toBe(first)
    expect(checkedLongRepeatOptions({ copies: 4 })).not.toBe(first)
    const bad = { copies: 1 }
    expect(() => checkedLongRepeatOptions(bad)).toThrow(/copies must be an integer >= 2/)
    expect(() => checkedLongRepeatOptions(bad)).toThrow(/copies must be an integer >= 2/)
  })
})
