import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { foldText, foldTextHead } from "../loops/normalize.js"
import { foldPhraseHead, foldPhraseText } from "../rollback/fold-text.js"
import { textHeads } from "./text-heads.js"

// Pieces chosen for what folding treats specially: final sigma, case-ignorable quotes, İ (which
// lowercases to two units), surrogate pairs and halves, combining marks, ligatures, contractions,
// CJK next to spaces, and every kind of whitespace.
const piece = fc.constantFrom(
  "a", "Σ", "ΣΑ", "'", "’", " ", "  ", "\n", "\t", "\u00a0", "\u3000", "İ", "😀", "\ud83d", "e\u0301", "ﬁ", "Ⅻ",
  "can", "not", "cannot", "will", "i", "am", "do", ".", "字", "作为一个", "AI", "Straße", "word"
)
const longText = fc.array(piece, { minLength: 100, maxLength: 900 }).map((ps) => ps.join(""))

describe("textHeads", () => {
  test("heads grow, each cut just after whitespace, and the last is the whole text", () => {
    const text = `${"word ".repeat(400)}tail`
    const heads = [...textHeads(text, 300)]
    expect(heads.at(-1)).toEqual({ head: text, whole: true })
    for (const { head, whole } of heads.slice(0, -1)) {
      expect(whole).toBe(false)
      expect(/\s$/.test(head)).toBe(true)
      expect(text.startsWith(head)).toBe(true)
    }
    expect(heads.map((h) => h.head.length)).toEqual([...heads.map((h) => h.head.length)].sort((a, b) => a - b))
  })

  test("a cut inside a word could change its fold (final sigma); a head is never cut there", () => {
    // The first head would be the first 256 characters, ending on Σ between two letters.
    const text = `${"a".repeat(255)}Σα and more words after it ${"filler ".repeat(60)}`
    expect(foldText(text.slice(0, 256)).endsWith("ς")).toBe(true)
    expect(foldText(text).startsWith(foldTextHead(text, 100))).toBe(true)
  })

  test("a text with no whitespace past the first cut is folded whole", () => {
    expect([...textHeads("x".repeat(5000), 300)]).toEqual([{ head: "x".repeat(5000), whole: true }])
  })
})

describe("folding a head stands for folding the whole text", () => {
  test("foldTextHead is an exact start of foldText, at least `need` long unless it is all of it", () => {
    fc.assert(
      fc.property(longText, fc.integer({ min: 1, max: 1500 }), (text, need) => {
        const full = foldText(text)
        const head = foldTextHead(text, need)
        expect(full.startsWith(head)).toBe(true)
        if (head.length < need) expect(head).toBe(full)
      }),
      { numRuns: 150 }
    )
  })

  test("a head's last words may fold differently (will | not → wont): that is what the margin is for", () => {
    // The first head ends with "will " (cut at the space at index 256).
    const text = `${"x ".repeat(126)}will not do more ${"words ".repeat(60)}`
    const { body, whole } = foldPhraseHead(text, 100)
    const full = foldPhraseText(text)
    expect(whole).toBe(false)
    expect(body.endsWith("will")).toBe(true)
    expect(full.startsWith(body)).toBe(false)
    expect(full.slice(0, body.length - 16)).toBe(body.slice(0, body.length - 16))
  })

  test("foldPhraseHead matches foldPhraseText but for its last 16 characters", () => {
    fc.assert(
      fc.property(longText, fc.integer({ min: 1, max: 1500 }), (text, need) => {
        const full = foldPhraseText(text)
        const { body, whole } = foldPhraseHead(text, need)
        if (whole) expect(body).toBe(full)
        else {
          expect(body.length).toBeGreaterThanOrEqual(need)
          expect(full.slice(0, body.length - 16)).toBe(body.slice(0, body.length - 16))
        }
      }),
      { numRuns: 150 }
    )
  })
})
