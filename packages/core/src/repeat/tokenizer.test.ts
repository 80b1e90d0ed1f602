import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { StreamTokenizer, isCjkCode, isWhitespaceCode, tokenize } from "./tokenizer.js"

// Independent oracle: the regex formulation of the tokens in docs/repetition.md (lowercasing per token, see tokenizer.ts).
const CJK = /[\u3000-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]/g
const oracle = (text: string): Array<string> =>
  text
    .replace(/\s+/g, " ")
    .replace(CJK, (c) => ` ${c} `)
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase())

// Text built from pieces that stress the boundaries: words, CJK, every kind of whitespace,
// surrogate pairs (emoji), mixed case.
const piece = fc.constantFrom(
  "Hello", "WORLD", "abc", "x", "I'll", "let's", "İstanbul", "ΟΔΟΣ", "😀", "a😀b",
  "中", "文", "。", "ー", "ｶ", "Ａ", "ｚ", "我再检查", "abc中def",
  " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\ufeff", "\u200b"
)
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(""))

/** Split `s` at the given cut points (any code unit, also inside surrogate pairs). */
const chunk = (s: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let from = 0
  for (const p of points) {
    out.push(s.slice(from, p))
    from = p
  }
  out.push(s.slice(from))
  return out
}

const streamTokens = (chunks: ReadonlyArray<string>): Array<string> => {
  const tokenizer = new StreamTokenizer()
  const tokens: Array<string> = []
  for (const c of chunks) tokens.push(...tokenizer.push(c))
  tokens.push(...tokenizer.flush())
  return tokens
}

describe("tokenize", () => {
  test("lowercases, collapses whitespace, splits CJK characters out of words", () => {
    expect(tokenize("  Hello   WORLD\n\tfoo ")).toEqual(["hello", "world", "foo"])
    expect(tokenize("abc中def")).toEqual(["abc", "中", "def"])
    expect(tokenize("我再检查一下这个文件。")).toEqual(["我", "再", "检", "查", "一", "下", "这", "个", "文", "件", "。"])
    expect(tokenize("ＡＢ")).toEqual(["ａ", "ｂ"])
    expect(tokenize("")).toEqual([])
    expect(tokenize(" \n\t ")).toEqual([])
  })

  test("U+3000 is whitespace, not a token, as \\s says", () => {
    expect(tokenize("a\u3000b")).toEqual(["a", "b"])
  })

  test("each CJK range boundary", () => {
    for (const [lo, hi] of [[0x3001, 0x30ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xf900, 0xfaff], [0xff00, 0xffef]]) {
      const inside = `x${String.fromCharCode(lo)}y${String.fromCharCode(hi)}z`
      expect(tokenize(inside)).toHaveLength(5)
      const outside = `x${String.fromCharCode(lo - 1)}y${String.fromCharCode(hi + 1)}z`
      expect(tokenize(outside).length).toBeLessThan(5)
    }
  })

  test("whitespace classification equals JavaScript's \\s on every BMP code unit", () => {
    const mismatches: Array<number> = []
    for (let c = 0; c <= 0xffff; c++) {
      if (isWhitespaceCode(c) !== /\s/.test(String.fromCharCode(c))) mismatches.push(c)
    }
    expect(mismatches).toEqual([])
  })

  test("CJK classification equals the documented ranges on every BMP code unit", () => {
    const mismatches: Array<number> = []
    for (let c = 0; c <= 0xffff; c++) {
      if (isCjkCode(c) !== /[\u3000-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]/.test(String.fromCharCode(c))) mismatches.push(c)
    }
    expect(mismatches).toEqual([])
  })

  test("equals the regex oracle on generated text", () => {
    fc.assert(fc.property(text, (s) => expect(tokenize(s)).toEqual(oracle(s))), { numRuns: 2000 })
  })
})

describe("StreamTokenizer", () => {
  test("holds a partial word across deltas", () => {
    const t = new StreamTokenizer()
    expect(t.push("hel")).toEqual([])
    expect(t.pending).toBe("hel")
    expect(t.push("lo wor")).toEqual(["hello"])
    expect(t.push("ld")).toEqual([])
    expect(t.flush()).toEqual(["world"])
    expect(t.flush()).toEqual([])
  })

  test("a CJK character ends the held word and is a token at once", () => {
    const t = new StreamTokenizer()
    expect(t.push("ab")).toEqual([])
    expect(t.push("C中d")).toEqual(["abc", "中"])
    expect(t.flush()).toEqual(["d"])
  })

  test("the pending word can be restored", () => {
    const t = new StreamTokenizer("Hel")
    expect(t.push("lo ")).toEqual(["hello"])
  })

  test("any chunking gives the same tokens as tokenize(whole text)", () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
        expect(streamTokens(chunk(s, cuts))).toEqual(tokenize(s))
      }),
      { numRuns: 3000 }
    )
  })

  test("one code unit per delta gives the same tokens as tokenize(whole text)", () => {
    fc.assert(
      fc.property(text, (s) => expect(streamTokens(s.split(""))).toEqual(tokenize(s))),
      { numRuns: 500 }
    )
  })
})
