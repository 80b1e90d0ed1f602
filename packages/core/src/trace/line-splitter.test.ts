import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { LineSplitter, type SplitLine } from "./line-splitter.js"

const utf8 = new TextEncoder()

/** Splits `text` fed in the given cut points. */
const split = (text: string, max: number, cuts: ReadonlyArray<number> = []): Array<SplitLine> => {
  const bytes = utf8.encode(text)
  const s = new LineSplitter(max)
  const out: Array<SplitLine> = []
  let at = 0
  for (const c of [...cuts].sort((a, b) => a - b)) {
    const to = Math.min(bytes.length, Math.max(at, c))
    out.push(...s.push(bytes.subarray(at, to)))
    at = to
  }
  out.push(...s.push(bytes.subarray(at)))
  return [...out, ...s.end()]
}

describe("LineSplitter", () => {
  test("lines, CRLF and a last line without a newline, numbered from 1", () => {
    expect(split("a\r\nbb\n\nccc", 100)).toEqual([
      { line: 1, text: "a", bytes: 1, capped: false },
      { line: 2, text: "bb", bytes: 2, capped: false },
      { line: 3, text: "", bytes: 0, capped: false },
      { line: 4, text: "ccc", bytes: 3, capped: false }
    ])
    expect(split("a\n", 100).map((l) => l.text)).toEqual(["a"])
    expect(split("", 100)).toEqual([])
  })

  test("a line over the cap keeps its beginning, whole characters only, and its real size", () => {
    const lines = split(`short\n${"é".repeat(10)}\r\nnext`, 5)
    expect(lines[1]).toEqual({ line: 2, text: "éé", bytes: 20, capped: true })
    expect(lines[2]).toEqual({ line: 3, text: "next", bytes: 4, capped: false })
    expect(split("abcdef\r\n", 6)[0]).toEqual({ line: 1, text: "abcdef", bytes: 6, capped: false })
  })

  test("a long line fed in many chunks holds at most the cap", () => {
    const s = new LineSplitter(1024)
    const chunk = new Uint8Array(64 * 1024).fill(0x61)
    for (let i = 0; i < 100; i++) expect(s.push(chunk)).toEqual([])
    const [line] = s.push(utf8.encode("\n"))
    expect(line).toEqual({ line: 1, text: "a".repeat(1024), bytes: 100 * 64 * 1024, capped: true })
  })

  test("any cut of the input gives the same lines as split(/\\r?\\n/)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "é", "語", "😀", "\n", "\r\n", " "), { maxLength: 40 }), fc.array(fc.nat(200), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join("")
        const expected = text.split(/\r?\n/)
        if (expected.at(-1) === "") expected.pop()
        expect(split(text, 1000, cuts).map((l) => l.text)).toEqual(expected)
      }),
      { numRuns: 300 }
    )
  })

  test("rejects a cap that is not a positive integer", () => {
    expect(() => new LineSplitter(0)).toThrow(/maxLineBytes/)
  })
})

describe("LineSplitter with a reused read buffer", () => {
  test("lines stay intact when the caller overwrites its buffer after each push (Node Buffers included)", () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i} ${"x".repeat(i * 7)}`).join("\n")
    const bytes = utf8.encode(text)
    const buffer = Buffer.alloc(37)
    const s = new LineSplitter(1000)
    const out: Array<string> = []
    for (let at = 0; at < bytes.length; at += buffer.length) {
      const n = Math.min(buffer.length, bytes.length - at)
      buffer.set(bytes.subarray(at, at + n))
      out.push(...s.push(buffer.subarray(0, n)).map((l) => l.text))
      buffer.fill(0x21)
    }
    out.push(...s.end().map((l) => l.text))
    expect(out).toEqual(text.split("\n"))
  })
})
