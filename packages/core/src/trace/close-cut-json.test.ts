import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { closeCutJson } from "./close-cut-json.js"

const close = (prefix: string): unknown => JSON.parse(closeCutJson(prefix))

describe("closeCutJson", () => {
  test("a string cut short keeps its beginning; whole members before it stay", () => {
    expect(close(`{"type":"tool-result","id":"c1","output":"abc`)).toEqual({ type: "tool-result", id: "c1", output: "abc" })
    expect(close(`{"a":[1,2,{"b":"x`)).toEqual({ a: [1, 2, { b: "x" }] })
  })

  test("a half escape, a half \\u sequence and a lone high surrogate at the cut are dropped", () => {
    expect(close(`{"o":"ab\\`)).toEqual({ o: "ab" })
    expect(close(`{"o":"ab\\\\`)).toEqual({ o: "ab\\" })
    expect(close(`{"o":"ab\\u00`)).toEqual({ o: "ab" })
    expect(close(`{"o":"ab\\\\u00`)).toEqual({ o: "ab\\u00" })
    expect(close(`{"o":"ab\uD83D`)).toEqual({ o: "ab" })
  })

  test("a key cut short, a key without value, a number or literal at the cut, a trailing comma: the member goes", () => {
    expect(close(`{"a":1,"out`)).toEqual({ a: 1 })
    expect(close(`{"a":1,"output":`)).toEqual({ a: 1 })
    expect(close(`{"output" : `)).toEqual({})
    expect(close(`{"a":"x","n":12`)).toEqual({ a: "x" })
    expect(close(`{"a":"x","n":tr`)).toEqual({ a: "x" })
    expect(close(`{"a":"x",`)).toEqual({ a: "x" })
    expect(close(`[1,2,`)).toEqual([1, 2])
    expect(close(`{"a":1,"b"`)).toEqual({ a: 1 })
    expect(close(`{`)).toEqual({})
  })

  test("every cut of a valid JSON text closes to valid JSON", () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 3 }), fc.nat(), (json, at) => {
        const cut = json.slice(0, at % (json.length + 1))
        if (cut.trim() === "" || !/^\s*[[{]/.test(json)) return
        expect(() => JSON.parse(closeCutJson(cut))).not.toThrow()
      }),
      { numRuns: 400 }
    )
  })

  test("a cut in a long string costs one pass (no pattern search from the end)", () => {
    const prefix = `{"output":"${"y".repeat(2_000_000)}`
    expect((close(prefix) as { output: string }).output.length).toBe(2_000_000)
  })
})
