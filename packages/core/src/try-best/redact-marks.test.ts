import { describe, expect, test } from "bun:test"
import { REDACTED, redactSecrets } from "./redact.js"
import { distinctRedactions, plainRedactions } from "./redact-marks.js"

const tokenA = "Qm9vdHN0cmFwX3BhZ2VfdG9rZW5fMDAwMDAwMTIzNDU2Nzg5YWJjZGVm"
const tokenB = "Zm9vYmFyX3NlY29uZF9wYWdlX3Rva2VuXzk4NzY1NDMyMTBmZWRjYmE0"

describe("distinctRedactions", () => {
  test("two hidden values get two marks, the same value the same mark, across calls; nothing of a value is in its mark", () => {
    const redact = distinctRedactions((t) => redactSecrets(t))
    const call = (token: string) => `curl 'https://storage.example.org/b/items?pageToken=${token}'`
    const a = redact(call(tokenA))
    const b = redact(call(tokenB))
    expect(a).toContain("[REDACTED:g]")
    expect(b).toBe(a.replace("[REDACTED:g]", "[REDACTED:h]"))
    expect(redact(call(tokenA))).toBe(a)
    for (const out of [a, b]) expect([out.includes(tokenA.slice(0, 8)), out.includes(tokenB.slice(0, 8))]).toEqual([false, false])
    expect(plainRedactions(a)).toBe(redactSecrets(call(tokenA)))
  })

  test("text with no secret is left as it is; output that is not the text with spans replaced keeps the plain mark", () => {
    const redact = distinctRedactions((t) => redactSecrets(t))
    expect(redact("npm test")).toBe("npm test")
    const rewriting = distinctRedactions((t) => `${REDACTED} and ${t.toUpperCase()}`)
    expect(rewriting("abc")).toBe(`${REDACTED} and ABC`)
  })

  test("many values: letters run on past z; a mark cut short at its end reads plain too", () => {
    const redact = distinctRedactions((t) => t.replace(/secret\d+/g, REDACTED))
    const marks = Array.from({ length: 25 }, (_, i) => redact(`x secret${i} y`))
    expect(new Set(marks).size).toBe(25)
    expect(marks[20]).toBe("x [REDACTED:gg] y")
    expect(plainRedactions("a [REDACTED:gh] b [REDACTED:g")).toBe(`a ${REDACTED} b ${REDACTED}`)
  })
})
