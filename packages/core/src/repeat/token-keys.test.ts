import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { StreamTokenKeys, tokenKey } from "./token-keys.js"
import { tokenize } from "./tokenizer.js"

// The same boundary-stressing pieces as the tokenizer's tests: case, Turkish İ, Greek capitals
// (final sigma), surrogate pairs cut anywhere, CJK and fullwidth letters, every whitespace.
const piece = fc.constantFrom(
  "Hello", "WORLD", "abc", "x", "I'll", "İstanbul", "ΟΔΟΣ", "ΣΑΣ", "😀", "a😀b", "Straße",
  "中", "文", "。", "ｶ", "Ａ", "ｚ", "我再检查", "abc中def", "café", "CAFÉ",
  " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\ufeff", "\u200b"
)
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(""))

const keysOf = (chunks: ReadonlyArray<string>): Array<number> => {
  const keys = new StreamTokenKeys()
  const out: Array<number> = []
  for (const c of chunks) keys.each(c, (k) => void out.push(k))
  const last = keys.flush()
  if (last !== null) out.push(last)
  return out
}

describe("StreamTokenKeys", () => {
  test("the key of each token of tokenize(text), for any cut into deltas (property)", () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b)
        const chunks: Array<string> = []
        let from = 0
        for (const p of points) {
          chunks.push(s.slice(from, p))
          from = p
        }
        chunks.push(s.slice(from))
        expect(keysOf(chunks)).toEqual(tokenize(s).map(tokenKey))
      }),
      { numRuns: 400, seed: 20261130 }
    )
  })

  test("equal tokens get equal keys whatever their case; different tokens differ", () => {
    expect(keysOf(["Hello hello HELLO"])).toEqual(Array(3).fill(tokenKey("hello")))
    expect(new Set(keysOf(["a b ab ba abc cab 中 文"])).size).toBe(8)
    expect(keysOf(["ＡＢ"])).toEqual([tokenKey("ａ"), tokenKey("ｂ")])
  })
})
