import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { firstChars } from "./normalize.js"

describe("firstChars", () => {
  test("equals the first n code points, for any text (lone surrogates and astral characters included)", () => {
    const unit = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom("\ud83d", "\ude00", "😀", "a", "字") }))
    fc.assert(
      fc.property(unit, fc.integer({ min: 0, max: 12 }), (text, n) => {
        expect(firstChars(text, n)).toBe(Array.from(text).slice(0, n).join(""))
      }),
      { numRuns: 500 }
    )
  })
})
