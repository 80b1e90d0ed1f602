import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { jaccard, shingles } from "./similarity.js"

describe("shingles", () => {
  test("3-word windows as a set", () => {
    expect(shingles("a b c d")).toEqual(["a b c", "b c d"])
    expect(shingles("a b c a b c")).toEqual(["a b c", "b c a", "c a b"])
  })
  test("fewer than three words give one shingle; none give none", () => {
    expect(shingles("a b")).toEqual(["a b"])
    expect(shingles("   ")).toEqual([])
  })
})

describe("jaccard", () => {
  test("intersection over union", () => {
    expect(jaccard(["a", "b", "c", "d", "e"], ["a", "b", "c", "d"])).toBe(0.8)
    expect(jaccard(["a", "b"], ["b", "c"])).toBeCloseTo(1 / 3, 12)
    expect(jaccard(["a"], ["b"])).toBe(0)
  })
  test("two empty sets are not similar", () => {
    expect(jaccard([], [])).toBe(0)
  })
  test("symmetric, within [0, 1], 1 on itself", () => {
    const set = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 20 })
    fc.assert(
      fc.property(set, set, (a, b) => {
        const j = jaccard(a, b)
        expect(j).toBe(jaccard(b, a))
        expect(j).toBeGreaterThanOrEqual(0)
        expect(j).toBeLessThanOrEqual(1)
        if (a.length > 0) expect(jaccard(a, a)).toBe(1)
      })
    )
  })
})
