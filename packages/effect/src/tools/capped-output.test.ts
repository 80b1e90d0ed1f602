import { describe, expect, test } from "bun:test"
import { makeCappedOutput } from "./capped-output.js"

describe("makeCappedOutput", () => {
  test("output under the cap is kept whole", () => {
    const out = makeCappedOutput(10)
    out.push("abc")
    out.push("def")
    expect(out.text()).toBe("abcdef")
    expect(out.dropped()).toBe(0)
  })
  test("past the cap it keeps the head and the tail and says how much was dropped", () => {
    const out = makeCappedOutput(10)
    for (let i = 0; i < 100; i++) out.push(String(i % 10))
    expect(out.dropped()).toBe(90)
    expect(out.text()).toBe("01234\n…[90 characters of output dropped]…\n56789")
  })
  test("one huge chunk is cut the same way", () => {
    const out = makeCappedOutput(4)
    out.push("x".repeat(1_000_000) + "END")
    expect(out.text()).toBe("xx\n…[999999 characters of output dropped]…\nND")
  })
})

describe("makeCappedOutput with a redactor: redacted, then cut", () => {
  const KEY = "KEY-0123456789abcdefghijklmnopqrstuvwxyz"
  const redact = (text: string) => text.split(KEY).join("[REDACTED]")
  const shown = (text: string) => [KEY.slice(0, 4), KEY.slice(-4)].filter((p) => text.includes(p))

  test("a key the cut splits between head and tail is redacted whole", () => {
    const out = makeCappedOutput(20, redact)
    out.push(`${"a".repeat(4)}${KEY}${"b".repeat(4)}`)
    expect(shown(out.text())).toEqual([])
  })
  test("a key where a long stream's tail begins, or at its head's end, is not half shown; the count still says what was dropped", () => {
    const out = makeCappedOutput(20, redact)
    out.push(`${"h".repeat(5)}${KEY}`)
    for (let i = 0; i < 2_000; i++) out.push("z".repeat(100))
    out.push(`${KEY}${"t".repeat(5)}`)
    const text = out.text()
    expect(shown(text)).toEqual([])
    expect(text.startsWith("hhhhh[REDA")).toBe(true)
    expect(text.endsWith("TED]ttttt")).toBe(true)
    expect(out.dropped()).toBeGreaterThan(200_000)
  })
})
