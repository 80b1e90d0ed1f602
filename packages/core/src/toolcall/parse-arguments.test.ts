import { describe, expect, test } from "bun:test"
import { parseToolArguments } from "./parse-arguments.js"

describe("parseToolArguments", () => {
  test("valid JSON passes through", () => {
    expect(parseToolArguments(`{"a":1}`)).toEqual({ ok: true, value: { a: 1 }, repaired: false })
  })
  test("empty text is an empty object", () => {
    expect(parseToolArguments("  ")).toEqual({ ok: true, value: {}, repaired: false })
  })
  test("trailing commas, single quotes and unquoted keys in complete text are repaired", () => {
    expect(parseToolArguments(`{'command': 'ls -la',}`)).toEqual({ ok: true, value: { command: "ls -la" }, repaired: true })
    expect(parseToolArguments(`{command: "ls", n: 2}`)).toEqual({ ok: true, value: { command: "ls", n: 2 }, repaired: true })
  })
  test("a cut-off text is refused, never completed: an unterminated string or an open object", () => {
    const inString = parseToolArguments(`{"command": "echo hi >> marker.txt`)
    expect(inString).toMatchObject({ ok: false, cutOff: true, value: { raw: `{"command": "echo hi >> marker.txt` } })
    if (!inString.ok) expect(inString.value.error).toContain("unterminated string")
    const open = parseToolArguments(`{"path": "src/a.ts", "n": 3`)
    expect(open).toMatchObject({ ok: false, cutOff: true })
    if (!open.ok) expect(open.value.error).toContain("still open")
    expect(parseToolArguments(`{'command': 'rm -rf build`)).toMatchObject({ ok: false, cutOff: true })
  })
  test("an apostrophe inside a word or a string does not count as an open string", () => {
    expect(parseToolArguments(`{"msg": "it's fine",}`)).toEqual({ ok: true, value: { msg: "it's fine" }, repaired: true })
  })
  test("Windows paths with lone backslashes keep their backslashes", () => {
    expect(parseToolArguments(`{"path": "C:\\Users\\me\\x.txt"}`).value).toEqual({ path: "C:\\Users\\me\\x.txt" })
  })
  test("a cut-off tail with a Windows path is refused, with its backslashes kept in raw", () => {
    const r = parseToolArguments(`{"path": "C:\\Users\\me\\data.txt", "n": 3`)
    expect(r).toMatchObject({ ok: false, cutOff: true, value: { raw: `{"path": "C:\\Users\\me\\data.txt", "n": 3` } })
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
