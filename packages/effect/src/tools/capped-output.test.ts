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
