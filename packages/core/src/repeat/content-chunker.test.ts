import { describe, expect, test } from "bun:test"
import { ContentChunker, MAX_CHUNK } from "./content-chunker.js"

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
})
