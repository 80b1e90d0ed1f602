import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { parseTrace, TraceLineParser } from "./parse.js"
import { formatTraceProblem, type TraceAssistant, type TraceToolResult } from "./types.js"

const EXAMPLE = [
  `{"type":"session","id":"s1","model":"openai/gpt-4o","agent":"main"}`,
  `{"type":"user","text":"Fix the failing test"}`,
  `{"type":"assistant","reasoning":"...","text":"...","toolCalls":[{"id":"c1","name":"bash","input":{"command":"npm test"}}],"finish":"tool-calls"}`,
  `{"type":"tool-result","id":"c1","name":"bash","output":"...","exitCode":1,"error":false}`,
  `{"type":"tool-result","id":"c2","name":"edit","output":"ok","path":"src/a.ts","diff":"--- a/src/a.ts\\n+++ b/src/a.ts\\n@@ ..."}`
].join("\n")

/** Parse one line after a valid user line; returns the errors of that line. */
const errorsOf = (line: string) => parseTrace(`{"type":"user","text":"hi"}\n${line}`, "t.jsonl").errors

describe("parseTrace: valid input", () => {
  test("the documented example parses completely", () => {
    const r = parseTrace(EXAMPLE, "ex.jsonl")
    expect(r.errors).toEqual([])
    expect(r.session).toEqual({ type: "session", line: 1, id: "s1", model: "openai/gpt-4o", agent: "main" })
    expect(r.lines.map((l) => [l.type, l.line])).toEqual([
      ["session", 1],
      ["user", 2],
      ["assistant", 3],
      ["tool-result", 4],
      ["tool-result", 5]
    ])
    const a = r.lines[2] as TraceAssistant
    expect(a).toEqual({
      type: "assistant",
      line: 3,
      step: 0,
      reasoning: "...",
      text: "...",
      toolCalls: [{ id: "c1", name: "bash", input: { command: "npm test" } }],
      finish: "tool-calls"
    })
    expect(r.lines[4] as TraceToolResult).toEqual({
      type: "tool-result",
      line: 5,
      id: "c2",
      name: "edit",
      output: "ok",
      path: "src/a.ts",
      diff: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ ..."
    })
  })

  test("unknown fields are ignored; optional fields may be null; input defaults to {}", () => {
    const r = parseTrace(
      `{"type":"assistant","extra":1,"text":null,"toolCalls":[{"id":"c","name":"ls","x":2}],"usage":{"inputTokens":5,"costUsd":0.1}}`
    )
    expect(r.errors).toEqual([])
    expect(r.lines[0]).toEqual({
      type: "assistant",
      line: 1,
      step: 0,
      toolCalls: [{ id: "c", name: "ls", input: {} }],
      usage: { inputTokens: 5 }
    })
  })

  test("blank lines are skipped but counted; CRLF and a BOM are accepted", () => {
    const r = parseTrace(`\uFEFF{"type":"user","text":"a"}\r\n\r\n   \n{"type":"assistant","text":"b"}\n`)
    expect(r.errors).toEqual([])
    expect(r.lines.map((l) => l.line)).toEqual([1, 4])
  })

  test("assistant error: a string or an object with a message", () => {
    const r = parseTrace(
      `{"type":"assistant","error":"boom","finish":"error"}\n{"type":"assistant","error":{"message":"rate","status":429,"code":"rate_limit"}}`
    )
    expect(r.errors).toEqual([])
    expect((r.lines[0] as TraceAssistant).error).toEqual({ message: "boom" })
    expect((r.lines[1] as TraceAssistant).error).toEqual({ message: "rate", status: 429, code: "rate_limit" })
  })

  test("steps are numbered in file order, from 0", () => {
    const r = parseTrace([`{"type":"user","text":"u"}`, `{"type":"assistant"}`, `{"type":"user","text":"v"}`, `{"type":"assistant"}`].join("\n"))
    expect(r.lines.filter((l): l is TraceAssistant => l.type === "assistant").map((a) => a.step)).toEqual([0, 1])
  })
})

describe("parseTrace: bad lines name their line and what is wrong", () => {
  test("bad JSON", () => {
    const e = errorsOf(`{"type":"user",`)
    expect(e).toHaveLength(1)
    expect(e[0]!.line).toBe(2)
    expect(e[0]!.file).toBe("t.jsonl")
    expect(e[0]!.message).toStartWith("bad JSON")
    expect(formatTraceProblem(e[0]!)).toStartWith("t.jsonl:2: bad JSON")
  })

  test("not an object", () => {
    expect(errorsOf(`[1,2]`)[0]!.message).toBe("expected a JSON object, got array")
    expect(errorsOf(`"assistant"`)[0]!.message).toBe("expected a JSON object, got string")
  })

  test("missing, mistyped or unknown type", () => {
    expect(errorsOf(`{"text":"x"}`)[0]!.message).toBe(`missing field "type"`)
    expect(errorsOf(`{"type":7}`)[0]!.message).toBe(`field "type" must be a string, got number`)
    expect(errorsOf(`{"type":"toolresult"}`)[0]!.message).toStartWith(`unknown type "toolresult"`)
  })

  test("missing required fields", () => {
    expect(errorsOf(`{"type":"user"}`)[0]!.message).toBe(`missing field "text"`)
    expect(errorsOf(`{"type":"tool-result","output":"x"}`)[0]!.message).toBe(`missing field "id"`)
    expect(errorsOf(`{"type":"assistant","toolCalls":[{"id":"a","name":"x"},{"id":"b"}]}`)[0]!.message).toBe(
      `missing field "toolCalls[1].name"`
    )
    expect(errorsOf(`{"type":"assistant","error":{"code":"x"}}`)[0]!.message).toBe(`missing field "error.message"`)
  })

  test("wrong field types", () => {
    expect(errorsOf(`{"type":"tool-result","id":"c","exitCode":"1"}`)[0]!.message).toBe(`field "exitCode" must be an integer, got string`)
    expect(errorsOf(`{"type":"tool-result","id":"c","exitCode":1.5}`)[0]!.message).toBe(`field "exitCode" must be an integer, got number`)
    expect(errorsOf(`{"type":"tool-result","id":"c","error":"yes"}`)[0]!.message).toBe(`field "error" must be a boolean, got string`)
    expect(errorsOf(`{"type":"tool-result","id":"c","output":{"a":1}}`)[0]!.message).toBe(`field "output" must be a string, got object`)
    expect(errorsOf(`{"type":"assistant","toolCalls":{}}`)[0]!.message).toBe(`field "toolCalls" must be an array, got object`)
    expect(errorsOf(`{"type":"assistant","toolCalls":["bash"]}`)[0]!.message).toBe(`field "toolCalls[0]" must be an object, got string`)
    expect(errorsOf(`{"type":"assistant","usage":{"inputTokens":"5"}}`)[0]!.message).toBe(`field "usage.inputTokens" must be a number, got string`)
    expect(errorsOf(`{"type":"assistant","error":5}`)[0]!.message).toBe(`field "error" must be a string or an object, got number`)
    expect(errorsOf(`{"type":"user","text":["a"]}`)[0]!.message).toBe(`field "text" must be a string, got array`)
  })

  test("finish must be a documented value", () => {
    expect(errorsOf(`{"type":"assistant","finish":"done"}`)[0]!.message).toStartWith(`field "finish" must be one of stop, length`)
    expect(errorsOf(`{"type":"assistant","finish":"unknown"}`)).toHaveLength(1)
  })

  test("every problem of a line is reported", () => {
    const e = errorsOf(`{"type":"tool-result","exitCode":"x","path":3}`)
    expect(e.map((x) => x.message)).toEqual([
      `missing field "id"`,
      `field "exitCode" must be an integer, got string`,
      `field "path" must be a string, got number`
    ])
    expect(e.every((x) => x.line === 2)).toBe(true)
  })

  test("a session line anywhere but first is an error", () => {
    expect(errorsOf(`{"type":"session","id":"s"}`)[0]!.message).toBe(`a "session" line may only be the first line`)
  })

  test("a bad line is left out and later lines still parse", () => {
    const r = parseTrace([`{"type":"user","text":"a"}`, `{bad`, `{"type":"assistant","text":"b"}`].join("\n"))
    expect(r.lines.map((l) => l.line)).toEqual([1, 3])
    expect(r.errors.map((e) => e.line)).toEqual([2])
  })

  test("a bad assistant line keeps its step number, so later steps keep theirs", () => {
    const r = parseTrace(
      [`{"type":"assistant","text":"s0"}`, `{"type":"assistant","finish":"nope"}`, `{"type":"assistant","text":"s2"`, `{"type":"assistant","text":"s3"}`].join("\n")
    )
    expect(r.errors.map((e) => e.line)).toEqual([2, 3])
    expect(r.lines.map((l) => (l as TraceAssistant).step)).toEqual([0, 3])
  })
})

describe("parseTrace never throws", () => {
  test("arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const r = parseTrace(s)
        expect(Array.isArray(r.lines)).toBe(true)
      })
    )
  })

  test("arbitrary JSON values, one per line: every non-blank line is either parsed or reported", () => {
    const lineValue = fc.oneof(
      fc.jsonValue(),
      fc.record({
        type: fc.constantFrom("session", "user", "assistant", "tool-result", "other"),
        text: fc.jsonValue(),
        id: fc.jsonValue(),
        toolCalls: fc.jsonValue(),
        exitCode: fc.jsonValue(),
        finish: fc.jsonValue(),
        usage: fc.jsonValue(),
        error: fc.jsonValue()
      }, { requiredKeys: ["type"] })
    )
    fc.assert(
      fc.property(fc.array(lineValue, { maxLength: 12 }), (values) => {
        const text = values.map((v) => JSON.stringify(v)).join("\n")
        const r = parseTrace(text)
        const parsed = new Set(r.lines.map((l) => l.line))
        const failed = new Set(r.errors.map((e) => e.line))
        values.forEach((_, i) => expect(parsed.has(i + 1) !== failed.has(i + 1)).toBe(true))
      })
    )
  })
})

describe("TraceLineParser: lines cut by the reader", () => {
  test("a cut tool-result keeps its fields before the cut, its output cut short, and a note with the size", () => {
    const full = JSON.stringify({ type: "tool-result", id: "c1", name: "bash", output: "y".repeat(500), exitCode: 1 })
    const r = new TraceLineParser("t.jsonl").push(full.slice(0, 100), 7, { bytes: full.length, keptBytes: 100 })
    expect(r.errors).toEqual([])
    expect(r.line).toMatchObject({ type: "tool-result", line: 7, id: "c1", name: "bash" })
    expect((r.line as TraceToolResult).output).toBe("y".repeat(100 - full.indexOf(`"output":"`) - `"output":"`.length))
    expect((r.line as TraceToolResult).exitCode).toBeUndefined()
    expect(r.notes?.map(formatTraceProblem)).toEqual([
      `t.jsonl:7: line of ${full.length} bytes is longer than input.maxLineBytes: only its first 100 bytes were read, so the fields after that point are missing and the last one kept is cut short`
    ])
  })

  test("a cut line that loses what makes it valid is an error at its line, with the note beside it", () => {
    const r = new TraceLineParser("t.jsonl").push(`{"type":"tool-res`, 3, { bytes: 9000, keptBytes: 17 })
    expect(r.line).toBeUndefined()
    expect(r.errors.map(formatTraceProblem)).toEqual([`t.jsonl:3: unknown type "tool-res" (expected session, user, assistant, tool-result)`])
    expect(r.notes).toHaveLength(1)
  })

  test("whole lines parse exactly as parseTrace parses them", () => {
    const p = new TraceLineParser("ex.jsonl")
    const lines = EXAMPLE.split("\n").map((row, i) => p.push(row, i + 1).line)
    expect(lines).toEqual([...parseTrace(EXAMPLE, "ex.jsonl").lines])
  })
})
