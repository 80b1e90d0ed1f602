import { describe, expect, test } from "bun:test"
import { ContentChunker, MAX_CHUNK, RAW_DIGITS } from "./content-chunker.js"

interface Seen {
  readonly masked: number
  readonly forced: boolean
  readonly words: number
  readonly numbers: number
}

const chunksOf = (text: string): Array<Seen> => {
  const out: Array<Seen> = []
  let words = 0
  let numbers = 0
  const chunker: ContentChunker = new ContentChunker(() => {
    out.push({ masked: chunker.lastMasked1, forced: chunker.lastForced, words: chunker.lastWordEnd - words, numbers: chunker.lastNumberEnd - numbers })
    words = chunker.lastWordEnd
    numbers = chunker.lastNumberEnd
  })
  chunker.feed(text + "\n.")
  return out
}

describe("ContentChunker", () => {
  test("numbers mask alike: counters, hex ids, UUID parts, 0x1F; letters before digits stay", () => {
    // Each line is 15 masked characters (a number masks to one), so each is one chunk cut at its newline.
    const [a, b, c, d] = chunksOf(["request 3fa9 is ok", "request 17 is no", "request d00d is ok", "request 9 fails"].join("\n"))
    expect(a!.masked).toBe(c!.masked)
    expect(a!.masked).not.toBe(b!.masked)
    expect(a!.masked).not.toBe(d!.masked)
    const [u, v] = chunksOf(["id 550e8400-e29b-41d4 x0 ok!", "id 6ba7b810-9dad-11d1 x9 ok!"].join("\n"))
    expect(u!.masked).toBe(v!.masked)
    const [s1, s2] = chunksOf(["the sha256 value.", "the sha512 value."].join("\n"))
    expect(s1!.masked).toBe(s2!.masked)
    expect(s1!.words).toBe(2) // the, value: `sha0` holds a number
  })

  test("whitespace and case normalise; a run with no natural cut is cut at MAX_CHUNK", () => {
    const [x] = chunksOf("Check   the\tvalue again now")
    const [y] = chunksOf("check the value again now")
    expect(x!.masked).toBe(y!.masked)
    // The first cut comes while the gear hash is still filling; then every chunk is forced.
    const run = chunksOf("/".repeat(MAX_CHUNK * 4)).slice(1, 4)
    expect(run.every((c) => c.forced)).toBe(true)
    expect(new Set(run.map((c) => c.masked)).size).toBe(1)
  })

  test("a run of whitespace calls onBlank at the character that reaches the limit, whatever the deltas", () => {
    for (const flood of [" ", "\n", "\t", " \r\n\t"]) {
      const text = "Some text first." + flood.repeat(200)
      const start = "Some text first.".length
      for (const size of [1, 17, 5_000]) {
        const at: Array<number> = []
        const chunker: ContentChunker = new ContentChunker(() => {}, 100, () => {
          at.push(chunker.chars)
          chunker.halted = true
        })
        for (let i = 0; i < text.length && !chunker.halted; i += size) chunker.feed(text.slice(i, i + size))
        expect(at).toEqual([start + 99])
      }
    }
    // Indentation, blank lines and spaces between words never add up: each run starts over.
    let blank = false
    const chunker = new ContentChunker(() => {}, 100, () => void (blank = true))
    chunker.feed(("\n".repeat(40) + " ".repeat(50) + "x").repeat(50))
    expect(blank).toBe(false)
  })

  test(`a number's digits past ${RAW_DIGITS} are seen as they are: 0.4444… makes repeating chunks, a hash's tail does not`, () => {
    const run = chunksOf("0." + "4".repeat(2_000)).slice(2, 8)
    expect(run.length).toBe(6)
    expect(new Set(run.map((c) => c.masked)).size).toBe(1)
    // Below the limit a long number still masks to one 0, like any other.
    const masked = (text: string) => chunksOf(text).map((c) => c.masked)
    expect(masked("the value 1234567890123456789012 is fine here")).toEqual(masked("the value 9876543210987654321098 is fine here"))
    expect(masked("the value 12345678901234567890123456789012345 is fine")).not.toEqual(masked("the value 12345678901234567890123456789012399 is fine"))
  })

  test("a CJK full stop cuts a short sentence into a chunk of its own; every word of 2+ characters is a term", () => {
    const lines = ["我们再看一遍。", "这样不对。", "我们再看一遍。"]
    const [x, y, z] = chunksOf(lines.join(""))
    expect(x!.masked).toBe(z!.masked)
    expect(x!.masked).not.toBe(y!.masked)
    let terms = 0
    let words = 0
    const chunker: ContentChunker = new ContentChunker(() => {
      terms = chunker.lastTermEnd
      words = chunker.lastWordEnd
    })
    chunker.feed("call x0_req_new and x0_req_free now\n" + "/".repeat(MAX_CHUNK))
    // Words: call, and, now; terms also hold the two identifiers with a number in them.
    expect(words).toBe(3)
    expect(terms).toBe(5)
  })

  test("code and markup weigh as symbols, prose does not; an indented line weighs 2", () => {
    const weight = (text: string): number => {
      let symbols = 0
      const chunker: ContentChunker = new ContentChunker(() => void (symbols = chunker.lastSymbolEnd))
      chunker.feed(text + "\n" + "x".repeat(MAX_CHUNK))
      return symbols
    }
    expect(weight("Wait, is it `msubsup` here? Let me check the parser's output again.")).toBe(0)
    expect(weight("if (a[i] <= b) { return c; }")).toBe(1 + 2 * 7)
    expect(weight("first line\n    indented\n  two spaces\n\tone tab")).toBe(2)
    // Quoted names in inline code weigh nothing; in a fenced block, or past a stray backtick's word, they do.
    expect(weight("Wait, `render()` calls `walk(node)` in `src/render/tree.ts` again.")).toBe(0)
    expect(weight("```\nrender()\n```")).toBe(1)
    expect(weight("`stray render() again")).toBe(1)
  })
})
