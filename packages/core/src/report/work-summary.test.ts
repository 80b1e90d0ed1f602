import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message, ToolPart } from "../model/message.js"
import { buildReport } from "./run-report.js"
import { changedFiles, failedShellWrites, formatToolFailure, lastToolFailure, summarizeWork } from "./work-summary.js"

let n = 0
const call = (name: string, input: unknown, result: Partial<ToolPart>): ToolPart => ({ type: "tool", callId: `c${n++}`, name, input, state: "completed", ...result })
const step = (i: number, parts: ReadonlyArray<ToolPart>, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: `a${i}`,
  parentId: "u0",
  step: i,
  parts,
  finish: "tool-calls",
  ...extra
})

/** A session as a coding agent leaves it: reads, a failing test run, two edits, a passing test run. */
const session: ReadonlyArray<Message> = [
  { role: "user", id: "u0", text: "Fix the failing test" },
  step(0, [call("read_file", { path: "src/date.ts" }, { output: "export const parse = …" }), call("bash", { command: "ls 1" }, { output: "a", exitCode: 0 })]),
  step(1, [call("bash", { command: "bun test" }, { output: "FAIL date.test.ts\n1 failed", exitCode: 1 })]),
  step(2, [call("edit", { path: "src/date.ts", old: "a", new: "b" }, { output: "ok", path: "src/date.ts", diff: "--- a\n+++ b" })]),
  step(3, [call("edit", { path: "src/date.ts", old: "b", new: "c" }, { output: "ok", path: "src/date.ts", diff: "--- a\n+++ b" })]),
  step(4, [call("bash", { command: "bun test" }, { output: "12 pass", exitCode: 0 })]),
  // Rolled back: as if it never happened.
  step(5, [call("edit", { path: "src/other.ts" }, { output: "ok", path: "src/other.ts", diff: "x" })], { excluded: "rollback" }),
  step(6, [call("bash", { command: "npm run lint" }, { output: "", error: "timed out after 120000 ms", state: "error" })])
]

describe("summarizeWork", () => {
  test("files changed, checks passed, commands with exit codes — not raw calls", () => {
    expect(summarizeWork(session)).toEqual([
      "changed src/date.ts (2 edits)",
      "checks passed: `bun test`",
      "ran `ls 1` (exit 0)",
      "ran `npm run lint` (did not finish)"
    ])
    expect(changedFiles(session)).toEqual(["src/date.ts"])
  })

  test("a check whose last run failed is a command with its exit code, not an achievement", () => {
    const failing = [...session.slice(0, 3)]
    expect(summarizeWork(failing)).toEqual(["ran `ls 1` (exit 0)", "ran `bun test` (exit 1)"])
  })
})

describe("lastToolFailure", () => {
  test("names the step, the tool, the command and the first line of the error", () => {
    const f = lastToolFailure(session)
    expect(f).toEqual({ step: 6, tool: "bash", target: "npm run lint", detail: "timed out after 120000 ms" })
    expect(formatToolFailure(f!)).toBe("step 6, tool bash (`npm run lint`): failed: timed out after 120000 ms")
    expect(formatToolFailure(lastToolFailure(session.slice(0, 3))!)).toBe("step 1, tool bash (`bun test`): exit 1: FAIL date.test.ts")
    expect(lastToolFailure(session.slice(0, 2))).toBeNull()
  })

  test("the report carries the summary the runtime derives", () => {
    const r = buildReport({ reason: "max_steps", stepsUsed: 7, completed: summarizeWork(session), blockedAt: formatToolFailure(lastToolFailure(session)!) })
    expect(r.completed[0]).toBe("changed src/date.ts (2 edits)")
    expect(r.blockedAt).toContain("tool bash")
  })
})

describe("calls that never ran and shell writes", () => {
  const messages: ReadonlyArray<Message> = [
    { role: "user", id: "u0", text: "go" },
    step(0, [call("bash", { command: "rm -rf build" }, { state: "error", error: "not run: tool execution is paused after repeated tool failures", notRun: true })]),
    step(1, [call("bash", { command: "echo hi >> marker.txt" }, { output: "", exitCode: 0 }), call("bash", { command: "./gen.sh && rm -rf out" }, { output: "", exitCode: 0 })]),
    step(2, [call("bash", { command: "npm test" }, { state: "error", error: "the user did not approve this command; it was not run", notRun: true })])
  ]

  test("a call answered without running is 'not run (why)', never 'ran … (did not finish)'", () => {
    const work = summarizeWork(messages)
    expect(work).toContain("not run `rm -rf build` (not run: tool execution is paused after repeated tool failures)")
    expect(work).toContain("not run `npm test` (the user did not approve this command; it was not run)")
    expect(work.join("\n")).not.toContain("did not finish")
  })

  test("a call not run is not where the work failed", () => {
    expect(lastToolFailure(messages)).toBeNull()
  })

  test("the files a shell command line names are changed files", () => {
    expect(changedFiles(messages)).toEqual(["marker.txt"])
  })

  test("a command that ran and failed may have written before it failed: its files are told apart, never dropped; one not run wrote nothing", () => {
    const failing: ReadonlyArray<Message> = [
      ...messages,
      step(3, [call("bash", { command: "echo hi > a.txt; false" }, { output: "", exitCode: 1 }), call("bash", { command: "make clean && exit 3" }, { output: "", exitCode: 3 })])
    ]
    expect(changedFiles(failing)).toEqual(["marker.txt"])
    expect(failedShellWrites(failing).files).toEqual(["a.txt"])
    // The refused `rm -rf build` (not run) is in neither list.
    expect(failedShellWrites(failing).commands.some((c) => c.includes("rm -rf build"))).toBe(false)
  })
})
