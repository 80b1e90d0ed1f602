import { describe, expect, test } from "bun:test"
import { detectFormat } from "./detect.js"
import { fixtureText, readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"
import { readTraceText } from "./read-text.js"
import { numberedDiff } from "./unified-diff.js"
import { piReader } from "./pi.js"

describe("pi session files", () => {
  test("an assistant message is a step with its thinking, calls, finish and usage; a failed model call is a step with its error", () => {
    const r = readFixture("pi.jsonl")
    expect(r.format).toBe("pi")
    expect(r.session).toMatchObject({ id: "01a237b6-e080-71ed-abd8-cbb345a0b0ad", model: "scripted-model" })
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => [s.line, s.toolCalls.map((c) => c.name), s.finish])).toEqual([
      [5, ["bash"], "tool-calls"],
      [7, ["write"], "tool-calls"],
      [9, ["edit"], "tool-calls"],
      [11, ["edit"], "tool-calls"],
      [13, [], "stop"],
      [15, [], "error"]
    ])
    expect(steps[0]).toMatchObject({ reasoning: "First look at the folder.", text: "Calling bash.", usage: { inputTokens: 900, outputTokens: 30, totalTokens: 930, cachedInputTokens: 0 } })
    expect(steps[0]!.toolCalls[0]).toEqual({ id: "call_a", name: "bash", input: { command: "ls missing-dir" } })
    expect(steps[2]!.toolCalls[0]!.input).toEqual({ path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] })
    expect(steps[5]!.error).toEqual({ message: "400 scripted bad request" })
    expect(r.lines.filter((l) => l.type === "user").map((l) => [l.line, l.type === "user" ? l.text : ""])).toEqual([
      [4, "Make notes.txt."],
      [14, "Now add delta to notes.txt."]
    ])
    expect(r.notes).toEqual([])
  })

  test("tool results: the shell's exit status, an edit's diff (line numbers dropped), an error", () => {
    const results = resultsOf(readFixture("pi.jsonl").lines)
    expect(results.map((x) => [x.line, x.id, x.name, x.error, x.exitCode])).toEqual([
      [6, "call_a", "bash", true, 2],
      [8, "call_b", "write", false, undefined],
      [10, "call_c", "edit", false, undefined],
      [12, "call_d", "edit", true, undefined]
    ])
    expect(results[0]!.output).toEndWith("Command exited with code 2")
    expect(results[2]).toMatchObject({ path: "notes.txt", diff: "--- notes.txt\n+++ notes.txt\n@@\n alpha\n-beta\n+gamma" })
    expect(results[3]!.output).toStartWith("Could not find the exact text in notes.txt.")
  })

  test("told apart from trace v1 (whose session line names no cwd) and from Codex items of type message", () => {
    expect(detectFormat(fixtureText("pi.jsonl"))).toBe("pi")
    expect(detectFormat(fixtureText("pi.jsonl").split("\n").slice(1).join("\n"))).toBe("pi")
    expect(detectFormat('{"type":"session","id":"s1","model":"m"}\n{"type":"user","text":"go"}')).toBe("trace")
    expect(detectFormat(fixtureText("codex.jsonl"))).toBe("codex")
    expect(detectFormat('{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}')).toBe("codex")
  })

  test("a branch (/tree) is read in file order and noted once; the person's own shell commands are user lines", () => {
    const text = [
      '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}',
      '{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"go"}}',
      '{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"first try"}],"stopReason":"stop"}}',
      '{"type":"branch_summary","id":"a3","parentId":"a1","fromId":"a2","summary":"tried once"}',
      '{"type":"message","id":"a4","parentId":"a3","message":{"role":"bashExecution","command":"ls","output":"a.txt","exitCode":0}}',
      '{"type":"message","id":"a5","parentId":"a4","message":{"role":"assistant","content":[{"type":"text","text":"second try"}],"stopReason":"aborted","errorMessage":"Request was aborted"}}'
    ].join("\n")
    const r = readTraceText(text, "branched.jsonl")
    expect(r.format).toBe("pi")
    expect(stepsOf(r.lines).map((s) => [s.line, s.text, s.finish, s.error?.name])).toEqual([
      [3, "first try", "stop", undefined],
      [6, "second try", "other", "aborted"]
    ])
    expect(r.lines.filter((l) => l.type === "user").map((l) => (l.type === "user" ? l.text : ""))).toEqual(["go", "!ls\na.txt"])
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([[4, "the session branches here (1 branch point(s), /tree): every branch is read, in file order"]])
  })

  test("what it cannot read is a note, never a throw", () => {
    for (const text of ["{}", "not json", '{"type":"message"}', '{"type":"message","message":{"role":"assistant","content":7}}', '{"type":"message","message":{"role":"toolResult","toolCallId":"x"}}', '{"type":"wizard"}']) {
      expect(() => readTraceText(text, "odd.jsonl", "pi")).not.toThrow()
    }
    const odd = readTraceText(
      ['{"type":"wizard"}', '{"type":"message","message":{"role":"toolResult","toolCallId":"x","content":"?"}}', '{"type":"message","message":{"role":"assistant","content":[{"type":"image"}]}}'].join("\n"),
      "odd.jsonl",
      "pi"
    )
    expect(odd.notes.map((n) => [n.line, n.message])).toEqual([
      [2, 'tool result "x" answers no call before it; skipped'],
      [3, 'assistant content block "image" has no trace v1 counterpart; skipped'],
      // Entries of a kind it does not know are noted once per kind, at the end.
      [1, 'entry of type "wizard" is not part of the conversation; skipped']
    ])
  })

  test("pi's numbered edit diff as a unified diff", () => {
    expect(numberedDiff("a.ts", "  1 x\n- 2 old\n+ 2 new\n-10 \n    ...\n 40 y\n+41 z")).toBe("--- a.ts\n+++ a.ts\n@@\n x\n-old\n+new\n-\n@@\n y\n+z")
    expect(numberedDiff("a.ts", "")).toBeUndefined()
  })

  test("what a log says is taken only for what it can be: a stop reason named like an object's own method, an absurd exit status or token count", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00Z", cwd: "/w" })
    const reply = (stopReason: string, usage: Record<string, number>) =>
      JSON.stringify({ type: "message", id: `a-${stopReason}`, parentId: null, message: { role: "assistant", content: [{ type: "toolCall", id: `c-${stopReason}`, name: "bash", arguments: { command: "make" } }], stopReason, usage } })
    const result = (id: string, text: string) => JSON.stringify({ type: "message", id: `r-${id}`, parentId: null, message: { role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: true } })
    const r = readTraceText(
      [header, reply("constructor", { input: 1e308, output: 5 }), result("c-constructor", "boom\nCommand exited with code 99999999999999999999999"), reply("toString", { input: 3, output: 2 }), result("c-toString", "boom\nCommand exited with code 2")].join("\n"),
      "odd.jsonl"
    )
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.finish)).toEqual(["other", "other"])
    expect(steps[0]!.usage).toEqual({ inputTokens: 0, outputTokens: 5, totalTokens: 5, cachedInputTokens: 0 })
    expect(resultsOf(r.lines).map((x) => x.exitCode)).toEqual([undefined, 2])
  })

  test("a line cut at input.maxLineBytes is noted, as trace v1 notes it (the other JSON Lines readers share this)", () => {
    const reader = piReader("long.jsonl")
    reader.push(JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/w" }), 1)
    const out = reader.push('{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"abc', 2, { bytes: 4212, keptBytes: 1000 })
    expect(JSON.stringify(out)).toContain("line of 4212 bytes is longer than input.maxLineBytes: only its first 1000 bytes were read")
  })
})
