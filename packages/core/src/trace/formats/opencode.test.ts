import { describe, expect, test } from "bun:test"
import { readTraceText } from "./read-text.js"
import { readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"

describe("OpenCode session exports", () => {
  const r = readFixture("opencode.json")

  test("detected by content; each step-start … step-finish of an assistant message is a step", () => {
    expect(r.format).toBe("opencode")
    expect(r.session).toMatchObject({ id: "ses_6a1f0c2e9ffeR1", model: "qwen3-coder", agent: "build" })
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([["bash"], ["edit", "read"], ["bash"], ["bash"], ["bash"], []])
    expect(steps[0]).toMatchObject({ reasoning: "Run the tests first to see the failure.", finish: "tool-calls", usage: { inputTokens: 3012, outputTokens: 61, reasoningTokens: 20 } })
    expect(steps[5]).toMatchObject({ text: "The test still fails the same way; I could not fix it.", finish: "stop" })
  })

  test("results from the tool state: the shell's exit, an edit's diff, an error's message; lines point into the document", () => {
    const results = resultsOf(r.lines)
    expect(results[0]).toMatchObject({ id: "call_01", name: "bash", exitCode: 1, error: false, line: 27 })
    expect(results[1]).toMatchObject({ name: "edit", path: "/home/dev/calc/src/sum.ts" })
    expect(results[1]!.diff).toContain("-  return a + b + 1\n+  return a + b")
    expect(results[2]).toMatchObject({ name: "read", error: true, output: "File not found: /home/dev/calc/src/missing.ts" })
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([[56, `part "canvas" has no trace v1 counterpart; skipped`]])
  })

  test("a document that does not parse is one note, nothing read; forcing the format on another JSON notes why", () => {
    const cut = readTraceText('{\n  "info": {\n', "cut.json", "opencode")
    expect(cut.lines).toEqual([])
    expect(cut.notes[0]!.message).toStartWith("the file is not one JSON document")
    const other = readTraceText('{"x": 1}', "x.json", "opencode")
    expect(other.notes[0]!.message).toStartWith("not an OpenCode export")
  })

  test("the compaction agent's summaries (summary: true, mode compaction) are no steps; the session's agent is the run's", () => {
    const message = (info: object, parts: ReadonlyArray<object>) => ({ info: { sessionID: "s", ...info }, parts })
    const summary = { role: "assistant", mode: "compaction", agent: "compaction", summary: true, modelID: "m" }
    const doc = {
      info: { id: "s" },
      messages: [
        message({ id: "u1", role: "user" }, [{ id: "p1", type: "text", text: "Write marker.txt." }]),
        message({ id: "a1", ...summary }, [{ id: "p2", type: "step-start" }, { id: "p3", type: "text", text: "Summary so far" }, { id: "p4", type: "step-finish", reason: "stop" }]),
        message({ id: "a2", role: "assistant", mode: "build", modelID: "m" }, [{ id: "p5", type: "step-start" }, { id: "p6", type: "text", text: "Done." }, { id: "p7", type: "step-finish", reason: "stop" }]),
        message({ id: "a3", ...summary }, [{ id: "p8", type: "step-start" }, { id: "p9", type: "text", text: "Summary so far" }, { id: "p10", type: "step-finish", reason: "stop" }])
      ]
    }
    const read = readTraceText(JSON.stringify(doc, null, 2), "compacted.json", "opencode")
    expect(stepsOf(read.lines).map((s) => s.text)).toEqual(["Done."])
    expect(read.session).toMatchObject({ agent: "build" })
  })
})
