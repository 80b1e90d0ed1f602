import { describe, expect, test } from "bun:test"
import { fencedRanges, quotedPlaces, withoutQuotes } from "./quoted-text.js"

describe("quoted text", () => {
  test("fenced blocks: backticks or tildes, closed by the same mark at least as long; an unclosed one runs to the end", () => {
    const text = "a\n```js\nx\n```\nb\n~~~~\ny\n~~~\nz"
    expect(fencedRanges(text).map(([s, e]) => text.slice(s, e))).toEqual(["```js\nx\n```", "~~~~\ny\n~~~\nz"])
  })

  test("a code block amid prose, a block quote line and a code span are quoted; the prose and a reply of one code block are not", () => {
    const text = "Say:\n```\nQ1\n```\n> Q2\nand `Q3` but Q4"
    const quoted = quotedPlaces(text)
    expect(["Q1", "Q2", "Q3", "Q4"].map((q) => quoted(text.indexOf(q)))).toEqual([true, true, true, false])
    expect(quotedPlaces("```\nQ\n```")(4)).toBe(false)
  })

  test("withoutQuotes blanks what is quoted and keeps lengths and lines; linear in the text", () => {
    const text = "Say:\n```\nQ1\n```\n> Q2\nand `Q3` but Q4"
    const blanked = withoutQuotes(text)
    expect(blanked.length).toBe(text.length)
    expect(blanked.split("\n").length).toBe(text.split("\n").length)
    expect(["Q1", "Q2", "Q3", "Q4"].map((q) => blanked.includes(q))).toEqual([false, false, false, true])
    const long = "word `code` ".repeat(50_000)
    expect(withoutQuotes(long).length).toBe(long.length)
  })
})
