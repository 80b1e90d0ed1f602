import { describe, expect, test } from "bun:test"
import { parseTrace } from "../parse.js"
import { traceToSteps } from "../to-steps.js"
import { readFixture } from "./fixtures.fixture.js"
import { toTraceV1 } from "./to-trace-v1.js"

const FIXTURES = ["claude-code.jsonl", "codex.jsonl", "opencode.json", "gemini-session.json", "gemini-checkpoint.json", "pi.jsonl"]

describe("round trip to trace v1", () => {
  test.each(FIXTURES)("%s: written as trace v1 and read back, the same steps, calls and results", (name) => {
    const read = readFixture(name)
    const text = toTraceV1(read.lines)
    const back = parseTrace(text, "back.jsonl")
    expect(back.errors).toEqual([])
    const strip = (ls: typeof read.lines) => ls.map(({ line: _l, ...rest }) => rest)
    expect(strip(back.lines)).toEqual(strip(read.lines))
    const a = traceToSteps(read.lines)
    const b = traceToSteps(back.lines)
    expect(b.steps.map((s) => s.reply.parts)).toEqual(a.steps.map((s) => s.reply.parts))
    // Every call of the converted run got its result (nothing was left dangling by the reader).
    expect(a.problems).toEqual([])
  })
})
