import { describe, expect, test } from "bun:test"
import { toolCallPart } from "../model/backend-helpers.js"
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan, parseToolArguments, TOO_DEEP, valueNestsDeeperThan } from "./parse-arguments.js"

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
  test("a bracket closed out of order with more after it is refused; as the last character it is a slip, repaired", () => {
    const r = parseToolArguments(`{"command": "rm -rf build/"], "dry_run": true}`)
    expect(r.ok).toBe(false)
    if (!r.ok) expect([r.cutOff, r.value.error]).toEqual([false, expect.stringContaining("out of order")])
    expect(parseToolArguments(`{"command": "ls"]`)).toEqual({ ok: true, value: { command: "ls" }, repaired: true })
  })
  test("a non-object or hopeless input yields {error, raw} and never throws", () => {
    for (const raw of ["[1,2]", "42", "}{", "\u0000\u0001"]) {
      const r = parseToolArguments(raw)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.value.raw).toBe(raw)
    }
  })
})

describe("arguments nested past any tool's need", () => {
  const deep = (n: number) => `{"command":${"[".repeat(n)}${"]".repeat(n)}}`
  test("text nested 20,000 deep is refused before it is parsed; never throws", () => {
    const r = parseToolArguments(deep(20_000))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.value.error).toBe(TOO_DEEP)
    expect(parseToolArguments(deep(MAX_ARGUMENT_DEPTH - 1)).ok).toBe(true)
    // Brackets inside strings are text, not nesting.
    expect(nestsDeeperThan(`{"a":"${"[".repeat(500)}"}`, MAX_ARGUMENT_DEPTH)).toBe(false)
  })
  test("an already parsed value nested 20,000 deep is measured without recursion", () => {
    let v: unknown = []
    for (let i = 0; i < 20_000; i++) v = [v]
    expect(valueNestsDeeperThan({ command: v }, MAX_ARGUMENT_DEPTH)).toBe(true)
    expect(valueNestsDeeperThan({ a: { b: [1, 2, { c: "x" }] } }, MAX_ARGUMENT_DEPTH)).toBe(false)
    expect(toolCallPart("c1", "bash", { command: v })).toEqual({ type: "tool-call", id: "c1", name: "bash", input: {}, argumentsError: TOO_DEEP })
  })
})
