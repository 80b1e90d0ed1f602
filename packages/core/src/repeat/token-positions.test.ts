import { describe, expect, test } from "bun:test"
import { TokenPositions } from "./token-positions.js"

describe("TokenPositions", () => {
  test("returns the previous newest position of a key, -1 for a new one, across colliding slots", () => {
    const table = new TokenPositions(26)
    // 50 keys in a 128-slot table: probing must keep every one apart.
    const keys = Array.from({ length: 50 }, (_, i) => i * 2 ** 32 + 7 * i)
    keys.forEach((key, i) => expect(table.record(key, i)).toBe(-1))
    keys.forEach((key, i) => expect(table.record(key, 100 + i)).toBe(i))
    expect(table.size).toBe(50)
    table.clear()
    expect(table.size).toBe(0)
    expect(table.record(keys[3]!, 7)).toBe(-1)
  })
})
