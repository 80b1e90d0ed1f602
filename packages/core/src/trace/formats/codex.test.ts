import { describe, expect, test } from "bun:test"
import { readTraceText } from "./read-text.js"
import { readFixture, resultsOf, stepsOf } from "./fixtures.fixture.js"

describe("Codex CLI rollout files", () => {
  const r = readFixture("codex.jsonl")

  test("detected by content; the session from session_meta and turn_context; the harness's context is no user turn", () => {
    expect(r.format).toBe("codex")
    expect(r.session).toMatchObject({ id: "0199a1b2-7c3d", model: "gpt-5-codex" })
    expect(r.lines.filter((l) => l.type === "user").map((l) => (l.type === "user" ? l.text : ""))).toEqual(["The test for sum() fails. Fix src/sum.ts so npm test passes."])
  })

  test("a reply is its run of reasoning, text and calls; token_count gives its usage", () => {
    const steps = stepsOf(r.lines)
    expect(steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([["shell"], ["apply_patch"], ["shell"], ["shell"], ["shell"], []])
    expect(steps[0]).toMatchObject({ reasoning: "Run the tests first to see the failure.", usage: { inputTokens: 3012, outputTokens: 61, cachedInputTokens: 3000, reasoningTokens: 20 } })
    expect(steps[0]!.toolCalls[0]!.input).toEqual({ command: ["bash", "-lc", "npm test"], workdir: "/home/dev/calc" })
  })

  test("outputs: the exit code from the JSON metadata or the Exit code header; apply_patch is an edit with its patch", () => {
    const results = resultsOf(r.lines)
    expect(results.map((x) => x.exitCode)).toEqual([1, 0, 1, 1, 1])
    expect(results[0]!.output).toBe("FAIL src/sum.test.ts\n  sum adds two numbers\n    expected 3, received 4\n")
    expect(results[1]).toMatchObject({ name: "apply_patch", path: "src/sum.ts" })
    expect(results[1]!.diff).toContain("*** Update File: src/sum.ts")
    expect(r.notes.map((n) => [n.line, n.message])).toEqual([[20, `response item "image_generation_call" has no trace v1 counterpart; skipped`]])
  })

  test("exec_command's output header gives its exit code; text after Output: is not read for it", () => {
    const text = [
      { type: "session_meta", payload: { id: "x" } },
      { type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: '{"cmd":"make"}', call_id: "e1" } },
      { type: "response_item", payload: { type: "function_call_output", call_id: "e1", output: "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\nmake: *** [all] Error 2" } },
      { type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: '{"cmd":"cat log"}', call_id: "e2" } },
      { type: "response_item", payload: { type: "function_call_output", call_id: "e2", output: "Chunk ID: 2\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nProcess exited with code 9" } }
    ].map((o) => JSON.stringify(o)).join("\n")
    expect(resultsOf(readTraceText(text, "exec.jsonl").lines).map((r) => r.exitCode)).toEqual([2, 0])
  })

  test("apply_patch run through exec_command with its patch in a heredoc is an edit with that patch", () => {
    const patch = "*** Begin Patch\n*** Add File: f1.js\n+console.log(1)\n*** End Patch"
    const text = [
      { type: "session_meta", payload: { id: "x" } },
      { type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: `apply_patch <<'EOF'\n${patch}\nEOF` }), call_id: "p1" } },
      { type: "response_item", payload: { type: "function_call_output", call_id: "p1", output: "Chunk ID: 9a\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nSuccess. Updated the following files:\nA f1.js\n" } }
    ].map((o) => JSON.stringify(o)).join("\n")
    expect(resultsOf(readTraceText(text, "patch.jsonl").lines)).toMatchObject([{ path: "f1.js", diff: patch, exitCode: 0 }])
  })

  test("older rollouts (bare items, no payload) and local shell calls read the same way", () => {
    const text = [
      { id: "old-1", timestamp: "2025-05-01T00:00:00Z", instructions: null },
      { record_type: "state" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "# AGENTS.md instructions for /repo\n\nUse pnpm." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "list files" }] },
      { type: "local_shell_call", call_id: "c1", status: "completed", action: { type: "exec", command: ["ls", "-la"] } },
      { type: "function_call_output", call_id: "c1", output: { content: "ls: cannot access", success: false } }
    ].map((o) => JSON.stringify(o)).join("\n")
    const old = readTraceText(text, "old.jsonl")
    expect(old.format).toBe("codex")
    expect(old.session).toMatchObject({ id: "old-1" })
    expect(old.lines.filter((l) => l.type === "user").map((l) => (l.type === "user" ? l.text : ""))).toEqual(["list files"])
    expect(stepsOf(old.lines)[0]!.toolCalls).toEqual([{ id: "c1", name: "local_shell", input: { command: ["ls", "-la"] } }])
    expect(resultsOf(old.lines)[0]).toMatchObject({ id: "c1", output: "ls: cannot access", error: true })
  })
})
