import { describe, expect, test } from "bun:test"
import { scanRepetition } from "@loopguard/core/repeat"
import { StreamingScan } from "./scan-stream.js"

const sentence = "I will check the configuration file once more to be sure. "
const vocabulary = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike"]
const paragraph = Array.from({ length: 120 }, (_, i) => vocabulary[(i * i + 3 * i) % vocabulary.length]).join(" ") + "."
const texts: Record<string, string> = {
  prose: Array.from({ length: 400 }, (_, i) => `w${(i * 7919) % 1000}`).join(" "),
  "short loop": `Some preamble first. ${sentence.repeat(25)}`,
  "long loop": `${paragraph} ${paragraph} ${paragraph} ${paragraph} ${paragraph}`,
  cjk: `开始。${"我再检查一下这个文件。".repeat(22)}`,
  "mixed case and a partial word at the end": `${"The Same Words Again And Again. ".repeat(21)}unfinish`
}

/** Cuts `text` at seeded positions, sometimes inside a surrogate pair or a word. */
const cuts = (text: string, seed: number): Array<string> => {
  const out: Array<string> = []
  let i = 0
  while (i < text.length) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const n = 1 + (seed % 97)
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

describe("StreamingScan (scan over stdin as it arrives)", () => {
  for (const [name, text] of Object.entries(texts)) {
    test(`${name}: the same verdict as scanning the whole input, however stdin is cut`, () => {
      const whole = scanRepetition(text, {})
      for (const seed of [1, 2, 3, 42, 1234]) {
        const scan = new StreamingScan({})
        for (const piece of cuts(text, seed)) scan.push(piece)
        expect(scan.end()).toEqual(whole)
      }
    })
  }

  test("the cases above include trips of both rules (the comparison is not vacuous)", () => {
    expect(scanRepetition(texts["short loop"]!, {}).repeat).toBe(true)
    expect(scanRepetition(texts["long loop"]!, {}).long).not.toBeNull()
    expect(scanRepetition(texts["prose"]!, {})).toMatchObject({ repeat: false, long: null })
  })
})
