import { describe, expect, test } from "bun:test"
import { ChunkNumbers } from "./chunk-numbers.js"
import { ContentChunker } from "./content-chunker.js"

/** Chunks of `lines`: one per line, each 15 masked characters plus its newline (cut there at 16). */
const chunked = (lines: ReadonlyArray<string>) => {
  let closed = 0
  const chunker: ContentChunker = new ContentChunker(() => numbers.record(closed++))
  const numbers = new ChunkNumbers(64, chunker)
  chunker.feed(lines.join("\n") + "\nthe end of it all, no more\nx")
  return { numbers, closed: () => closed }
}

describe("ChunkNumbers", () => {
  test("same values: decimal counters and hex ids compare by value", () => {
    const { numbers } = chunked(["attempt 12 of it", "attempt 12 of it", "attempt 13 of it", "request 3fa9 fails", "request 3fa9 fails"])
    expect(numbers.same(1, 0)).toBe(true)
    expect(numbers.same(2, 1)).toBe(false)
    expect(numbers.same(4, 3)).toBe(true)
  })

  test("progression: every value moved by the step of the copy before, per position", () => {
    const line = (a: number, b: number) => `step ${a} offset ${b}`
    const { numbers } = chunked([line(1, 0), line(2, 64), line(3, 128), line(4, 200)])
    expect(numbers.progress(1, 2)).toBe(true) // 3-2 = 2-1 and 128-64 = 64-0
    expect(numbers.progress(1, 3)).toBe(false) // 200-128 ≠ 128-64
    expect(numbers.countIn(2, 3)).toBe(4)
  })
})
