import { describe, expect, test } from "bun:test"
import { traceToSteps } from "../to-steps.js"
import { readTraceText } from "./read-text.js"
import { fixtureText, readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"

describe("Claude Code session files", () => {
  const r = readFixture("claude-code.jsonl")

  test("detected by content; one step per message id, blocks of one reply merged", () => {
    expect(r.format).toBe("claude-code")
    expect(r.errors).toEqual([])
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([["Bash"], ["Edit", "Read"], ["Bash"], ["Bash"], ["Bash"], []])
    expect(steps[0]).toMatchObject({ line: 3, step: 0, reasoning: "Run the tests first to see the failure.", finish: "tool-calls" })
    // The last line of a reply carries its final usage; cache reads count as input.
    expect(steps[0]!.usage).toEqual({ inputTokens: 3012, outputTokens: 61, totalTokens: 3073, cachedInputTokens: 3000 })
    expect(steps[5]).toMatchObject({ text: "The test still fails the same way; I could not fix it.", finish: "stop" })
    expect(r.session).toMatchObject({ id: "5d1c7e0a-cc01" })
  })

  test("tool results: the Bash exit code from its text, an edit's structuredPatch as a unified diff", () => {
    const [first, edit] = resultsOf(r.lines)
    expect(first).toMatchObject({ id: "toolu_01", name: "Bash", exitCode: 1, error: true, line: 5 })
    expect(edit).toMatchObject({ id: "toolu_02", name: "Edit", error: false, path: "/home/dev/calc/src/sum.ts" })
    expect(edit!.diff).toBe(
      "--- /home/dev/calc/src/sum.ts\n+++ /home/dev/calc/src/sum.ts\n@@ -1,3 +1,3 @@\n export function sum(a: number, b: number) {\n-  return a + b + 1\n+  return a + b\n }"
    )
  })

  test("sub-agent lines are left out of the main run with one note; unknown lines are noted and skipped", () => {
    expect(r.lines.some((l) => l.type === "user" && l.text.includes("other callers"))).toBe(false)
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([
      [9, "2 sub-agent (isSidechain) lines left out: they are another agent's run (its Task call's result stands for it here)"],
      [18, `line type "bookmark" is not part of the conversation; skipped`]
    ])
  })

  test("lines of a kind it does not know are one note per kind, however many there are; its own bookkeeping lines none", () => {
    const lines = [
      ...Array.from({ length: 40 }, (_, i) => JSON.stringify({ type: "telemetry-tick", n: i })),
      ...["attachment", "api-request", "cost-state", "tools-used", "last-prompt"].map((type) => JSON.stringify({ type })),
      JSON.stringify({ type: "user", sessionId: "s", uuid: "1", message: { role: "user", content: "hi" } })
    ]
    const read = readTraceText(lines.join("\n"), "s.jsonl", "claude-code")
    expect(read.notes.map((n) => [n.line, n.message])).toEqual([[1, `line type "telemetry-tick" is not part of the conversation; 40 such lines skipped, the first here`]])
  })

  test("a sub-agent's own file is read from its sidechain lines; bad JSON is a note, not a stop", () => {
    const text = [
      JSON.stringify({ type: "user", isSidechain: true, sessionId: "s", uuid: "1", message: { role: "user", content: "find callers" } }),
      "{not json",
      JSON.stringify({ type: "assistant", isSidechain: true, sessionId: "s", uuid: "2", message: { id: "m", role: "assistant", content: [{ type: "text", text: "one caller" }], stop_reason: "end_turn" } })
    ].join("\n")
    const sub = readTraceText(text, "agent.jsonl")
    expect(sub.format).toBe("claude-code")
    expect(stepsOf(sub.lines).map((s) => s.text)).toEqual(["one caller"])
    expect(sub.notes[0]).toMatchObject({ file: "agent.jsonl", line: 2 })
    expect(sub.notes[0]!.message).toStartWith("bad JSON")
  })

  test("the stream-json output of claude -p reads the same: session and model from its init line, sub-agent lines left out", () => {
    const text = [
      { type: "system", subtype: "init", session_id: "sj-1", model: "claude-sonnet-4-5", tools: ["Bash"] },
      { type: "assistant", session_id: "sj-1", parent_tool_use_id: null, message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }], stop_reason: "tool_use" } },
      { type: "assistant", session_id: "sj-1", parent_tool_use_id: "t0", message: { id: "m9", role: "assistant", content: [{ type: "text", text: "sub-agent" }] } },
      { type: "user", session_id: "sj-1", parent_tool_use_id: null, message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.ts", is_error: false }] } },
      { type: "result", subtype: "success", session_id: "sj-1", is_error: false, num_turns: 1 }
    ].map((o) => JSON.stringify(o)).join("\n")
    const r = readTraceText(text, "stream.jsonl")
    expect(r.format).toBe("claude-code")
    expect(r.session).toMatchObject({ id: "sj-1", model: "claude-sonnet-4-5" })
    expect(stepsOf(r.lines).map((s) => s.toolCalls.map((c) => c.name))).toEqual([["Bash"]])
    expect(resultsOf(r.lines)[0]).toMatchObject({ id: "t1", exitCode: 0, error: false, output: "a.ts" })
    expect(r.notes.map((n) => n.line)).toEqual([3])
  })

  test("a reply whose second call is written after the first call's result is still one step", () => {
    const msg = (content: Array<object>) => ({ type: "assistant", sessionId: "s", uuid: "x", message: { id: "m1", role: "assistant", content, stop_reason: "tool_use" } })
    const result = (id: string) => ({ type: "user", sessionId: "s", uuid: "y", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] } })
    const text = [
      { type: "user", sessionId: "s", uuid: "u", message: { role: "user", content: "read both" } },
      msg([{ type: "tool_use", id: "a", name: "Read", input: { file_path: "a" } }]),
      result("a"),
      msg([{ type: "tool_use", id: "b", name: "Read", input: { file_path: "b" } }]),
      result("b"),
      { type: "assistant", sessionId: "s", uuid: "z", message: { id: "m2", role: "assistant", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" } }
    ].map((o) => JSON.stringify(o)).join("\n")
    const r = readTraceText(text, "parallel.jsonl")
    expect(stepsOf(r.lines).map((s) => s.toolCalls.map((c) => c.id))).toEqual([["a", "b"], []])
    expect(resultsOf(r.lines).map((x) => x.id)).toEqual(["a", "b"])
    expect(traceToSteps(r.lines).problems).toEqual([])
  })

  test("bookkeeping lines of 2.1.3xx (mode, ai-title, agent-name, permission-mode, pr-link, content-replacement, worktree-state) give no note", () => {
    const kinds = ["mode", "ai-title", "agent-name", "permission-mode", "pr-link", "content-replacement", "worktree-state"]
    const text = [
      ...kinds.map((type) => ({ type, sessionId: "s" })),
      { type: "user", sessionId: "s", uuid: "u", message: { role: "user", content: "go" } },
      { type: "assistant", sessionId: "s", uuid: "a", message: { id: "m1", role: "assistant", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" } }
    ].map((o) => JSON.stringify(o)).join("\n")
    const r = readTraceText(text, "bookkeeping.jsonl")
    expect(r.format).toBe("claude-code")
    expect(r.notes).toEqual([])
    expect(stepsOf(r.lines)).toHaveLength(1)
  })

  test("a server tool's call (server_tool_use) and its result in the same reply are a call with its result", () => {
    const reply = (content: Array<object>) => ({ type: "assistant", sessionId: "s", uuid: "a", message: { id: "m1", role: "assistant", content, stop_reason: "end_turn" } })
    const text = [
      { type: "user", sessionId: "s", uuid: "u", message: { role: "user", content: "search" } },
      reply([
        { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "x" } },
        { type: "web_search_tool_result", tool_use_id: "srv_1", content: [{ type: "web_search_result", title: "X", url: "https://example.invalid/x" }] },
        { type: "server_tool_use", id: "srv_2", name: "web_search", input: { query: "y" } },
        { type: "web_search_tool_result", tool_use_id: "srv_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } },
        { type: "text", text: "Searched." }
      ])
    ].map((o) => JSON.stringify(o)).join("\n")
    const r = readTraceText(text, "server-tool.jsonl")
    expect(r.notes).toEqual([])
    expect(stepsOf(r.lines).map((s) => s.toolCalls.map((c) => c.id))).toEqual([["srv_1", "srv_2"]])
    expect(resultsOf(r.lines)).toMatchObject([
      { id: "srv_1", name: "web_search", output: "X https://example.invalid/x", error: false },
      { id: "srv_2", name: "web_search", output: "max_uses_exceeded", error: true }
    ])
    expect(traceToSteps(r.lines).problems).toEqual([])
  })
  test("entries written again (the same uuid: some versions write a session's earlier entries again on each turn) are read once, with one note", () => {
    const lines = fixtureText("claude-code.jsonl").split("\n").filter((l) => l.trim() !== "")
    // Each turn writes the history so far again before its new entries.
    const rewritten = lines.flatMap((line, i) => (i % 4 === 3 ? [...lines.slice(0, i), line] : [line])).join("\n")
    const once = readTraceText(lines.join("\n"), "once.jsonl")
    const again = readTraceText(rewritten, "again.jsonl")
    // The same steps and results; only the lines they are read from moved.
    const unlined = <A extends { line: number }>(xs: ReadonlyArray<A>) => xs.map(({ line: _, ...rest }) => rest)
    expect(unlined(stepsOf(again.lines))).toEqual(unlined(stepsOf(once.lines)))
    expect(unlined(resultsOf(again.lines))).toEqual(unlined(resultsOf(once.lines)))
    expect(again.notes.filter((n) => n.message.includes("the same uuid"))).toHaveLength(1)
    expect(once.notes.filter((n) => n.message.includes("the same uuid"))).toHaveLength(0)
  })
})
