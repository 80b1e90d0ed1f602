import { describe, expect, test } from "bun:test"
import { parseToolArguments } from "./parse-arguments.js"

describe("parseToolArguments", () => {
  test("valid JSON passes through", () => {
    expect(parseToolArguments(`{"a":1}`)).toEqual({ ok: true, value: { a: 1 }, repaired: false })
  })
  test("empty text is an empty object", () => {
    expect(parseToolArguments("  ")).toEqual({ ok: true, value: {}, repaired: false })
  })
  test("trailing commas, single quotes and a cut-off tail are repaired", () => {
    expect(parseToolArguments(`{'command': 'ls -la',}`)).toEqual({ ok: true, value: { command: "ls -la" }, repaired: true })
    const cut = parseToolArguments(`{"path": "src/a.ts", "content": "hel`)
    expect(cut.ok).toBe(true)
    expect(cut.value).toMatchObject({ path: "src/a.ts" })
  })
  test("Windows paths with lone backslashes keep their backslashes", () => {
    expect(parseToolArguments(`{"path": "C:\\Users\\me\\x.txt"}`).value).toEqual({ path: "C:\\Users\\me\\x.txt" })
  })
  test("a cut-off tail with a Windows path keeps the backslashes", () => {
    expect(parseToolArguments(`{"path": "C:\\Users\\me\\data.txt", "n": 3`).value).toEqual({ path: "C:\\Users\\me\\data.txt", n: 3 })
  })
  test("valid escapes are not doubled", () => {
    expect(parseToolArguments(`{"s": "a\\nb"}`).value).toEqual({ s: "a\nb" })
  })
  test("a non-object or hopeless input yields {error, raw} and never throws", () => {
    for (const raw of ["[1,2]", "42", "}{", "\u0000\u0001"]) {
      const r = parseToolArguments(raw)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.value.raw).toBe(raw)
    }
  })
})
