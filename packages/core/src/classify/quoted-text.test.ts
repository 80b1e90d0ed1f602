import { describe, expect, test } from "bun:test"
import { fencedRanges, indentedRanges, quotedPlaces, withoutQuotes } from "./quoted-text.js"

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
    // Many fences and many indented lines: one pass over the lines, not one per fence.
    const fenced = "p\n```\nx\n```\n\n    y\n".repeat(20_000)
    expect(withoutQuotes(fenced).length).toBe(fenced.length)
  })

  test("indented code blocks: four spaces or a tab after a blank line, not a paragraph's indented line, not inside a fence", () => {
    const text = "Para\n    goes on\n\n    code 1\n\tcode 2\nback\n```\n\n    fenced\n```"
    expect(indentedRanges(text).map(([s, e]) => text.slice(s, e))).toEqual(["    code 1\n\tcode 2\n"])
  })

  test("an indented block and an HTML <pre> or <code> element amid prose are quoted, and blanked", () => {
    const text = "The README says:\n\n    Q1\n\nand the page: <pre>Q2</pre> and <code>Q3</code>; Q4"
    const quoted = quotedPlaces(text)
    expect(["Q1", "Q2", "Q3", "Q4"].map((q) => quoted(text.indexOf(q)))).toEqual([true, true, true, false])
    expect(["Q1", "Q2", "Q3", "Q4"].map((q) => withoutQuotes(text).includes(q))).toEqual([false, false, false, true])
    expect(quotedPlaces("    Q alone")(4)).toBe(false)
  })
})
