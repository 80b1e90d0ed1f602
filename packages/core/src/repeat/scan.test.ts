import { describe, expect, test } from "bun:test"
import { scanText } from "./scan.js"

const SENTENCE = "我再检查一下这个文件。"

describe("scanText", () => {
  test("the documented examples (docs/repetition.md)", () => {
    expect(scanText(SENTENCE.repeat(19))).toEqual({ repeat: false, token: null, period: null })
    expect(scanText(SENTENCE.repeat(20))).toEqual({ repeat: true, token: 219, period: 11 })
    expect(scanText("哈".repeat(200))).toEqual({ repeat: false, token: null, period: null })
  })

  test("token index counts the whole text, prefix included, in mixed case and whitespace", () => {
    const prefix = "Some Intro text\n\nwith\tseven words " // 6 tokens
    const loop = Array.from({ length: 20 }, (_, i) => (i % 2 ? "RUN the  Tests now\n" : "run THE tests NOW ")).join("")
    expect(scanText(prefix + loop)).toEqual({ repeat: true, token: 6 + 4 * 20 - 1, period: 4 })
  })

  test("empty and whitespace-only texts do not repeat", () => {
    expect(scanText("")).toEqual({ repeat: false, token: null, period: null })
    expect(scanText(" \n ")).toEqual({ repeat: false, token: null, period: null })
  })

  test("options apply, and invalid options throw naming the field", () => {
    expect(scanText("a b c a b c a b c", { window: 30, threshold: 3, minBlock: 3 })).toEqual({
      repeat: true, token: 8, period: 3
    })
    expect(() => scanText("x", { minBlock: 0 })).toThrow(/minBlock/)
  })

  test("each text is independent", () => {
    const half = SENTENCE.repeat(10)
    expect(scanText(half).repeat).toBe(false)
    expect(scanText(half).repeat).toBe(false)
  })
})
