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

  test("a call whose arguments Codex could not read (cut off) is a failed call: nothing ran", () => {
    const rollout = [
      '{"type":"session_meta","payload":{"id":"s1","originator":"codex_exec"}}',
      '{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"ec","call_id":"c1"}}',
      '{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"failed to parse function arguments: EOF while parsing a string at line 1 column 35"}}'
    ].join("\n")
    const read = readTraceText(rollout, "cut.jsonl", "codex")
    expect(resultsOf(read.lines)[0]).toMatchObject({ id: "c1", error: true })
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

  const rollout = (records: ReadonlyArray<object>): string => records.map((o) => JSON.stringify(o)).join("\n")
  const item = (payload: object, metadata?: object) => ({ type: "response_item", payload, ...(metadata !== undefined ? { metadata } : {}) })
  const call = (id: string, cmd: string) => item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd }), call_id: id })
  const output = (id: string) => item({ type: "function_call_output", call_id: id, output: "Process exited with code 0\nOutput:\n" })
  const tokens = (output: number) => ({ type: "event_msg", payload: { type: "token_count", info: { last_token_usage: { input_tokens: 100, output_tokens: output, total_tokens: 100 + output } } } })
  const say = (text: string, metadata?: object) => item({ type: "message", role: "assistant", content: [{ type: "output_text", text }] }, metadata)

  test("0.17x writes token_count after the outputs of the reply's calls: the usage goes to that reply, results stay after it", () => {
    const text = rollout([{ type: "session_meta", payload: { id: "x" } }, call("c1", "ls"), { type: "token_usage_record", payload: {} }, output("c1"), tokens(12), call("c2", "pwd"), output("c2"), tokens(7), tokens(99), say("done"), tokens(5)])
    const read = readTraceText(text, "usage.jsonl")
    expect(stepsOf(read.lines).map((s) => s.usage?.outputTokens)).toEqual([12, 7, 5])
    expect(read.lines.filter((l) => l.type !== "session").map((l) => (l.type === "assistant" ? `step ${l.step}` : l.type === "tool-result" ? l.id : l.type))).toEqual(["step 0", "c1", "step 1", "c2", "step 2"])
  })

  test("auto-compaction ends the reply before it; the summary (marked compaction_output, or quoted by the compacted record) is no step", () => {
    const compacted = (summary: string) => ({ type: "compacted", payload: { message: `Here is the summary produced by the other language model:\n${summary}`, replacement_history: [] } })
    const marked = rollout([{ type: "session_meta", payload: { id: "x" } }, call("c1", "ls"), output("c1"), tokens(3), say("Summary A", { compaction_output: true }), tokens(4), compacted("Summary A"), call("c2", "ls"), output("c2"), tokens(6)])
    const steps = stepsOf(readTraceText(marked, "compact.jsonl").lines)
    expect(steps.map((s) => [s.text, s.toolCalls.map((c) => c.id), s.usage?.outputTokens])).toEqual([[undefined, ["c1"], 3], [undefined, ["c2"], 6]])
    const unmarked = rollout([{ type: "session_meta", payload: { id: "x" } }, call("c1", "ls"), output("c1"), say("Summary B"), compacted("Summary B"), call("c2", "ls"), output("c2")])
    expect(stepsOf(readTraceText(unmarked, "compact-old.jsonl").lines).map((s) => [s.text, s.toolCalls.map((c) => c.id)])).toEqual([[undefined, ["c1"]], [undefined, ["c2"]]])
  })

  test("a turn that failed on the model (task_complete.error, an error event) is a step with that error, told once", () => {
    const failed = { type: "event_msg", payload: { type: "task_complete", last_agent_message: null, error: { message: "We're currently experiencing high demand", codex_error_info: "internal_server_error" } } }
    const steps = stepsOf(readTraceText(rollout([{ type: "session_meta", payload: { id: "x" } }, failed]), "fault.jsonl").lines)
    expect(steps).toMatchObject([{ step: 0, finish: "error", error: { message: "We're currently experiencing high demand", code: "internal_server_error" }, toolCalls: [] }])
    const cut = { type: "event_msg", payload: { type: "error", message: "Incomplete response returned, reason: max_output_tokens" } }
    const twice = rollout([call("c1", "ls"), output("c1"), tokens(3), cut, { ...failed, payload: { ...failed.payload, error: { message: cut.payload.message } } }])
    expect(stepsOf(readTraceText(twice, "cut.jsonl", "codex").lines).map((s) => [s.toolCalls.length, s.error?.message])).toEqual([[1, undefined], [0, "Incomplete response returned, reason: max_output_tokens"]])
  })
})
