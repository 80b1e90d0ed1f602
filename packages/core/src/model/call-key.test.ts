import { describe, expect, test } from "bun:test"
import { callInputKey, foldCommand, jobAgnosticInputKey } from "./call-key.js"

describe("callInputKey", () => {
  test("calls spelled apart are one key: spaces, ./ and $PWD/, key order", () => {
    const key = callInputKey({ command: "npm test" })
    for (const command of ["npm  test", " npm test", "npm test ", "npm\ttest"]) expect(callInputKey({ command })).toBe(key)
    expect(callInputKey({ command: "cat ./src/a.ts" })).toBe(callInputKey({ command: "cat src/a.ts" }))
    expect(callInputKey({ command: "cat $PWD/src/a.ts" })).toBe(callInputKey({ command: "cat src/a.ts" }))
    expect(callInputKey({ filePath: "./src/a.ts", limit: 20 })).toBe(callInputKey({ limit: 20, filePath: "src/a.ts" }))
    expect(callInputKey({ command: ["bash", "-lc", "npm  test"] })).toBe(callInputKey({ command: ["bash", "-lc", "npm test"] }))
  })
  test("jobAgnosticInputKey: a background shell's handle (bash_id, shell_id) is left out, so a restart loop reads the same each round; callInputKey keeps it", () => {
    expect(jobAgnosticInputKey({ bash_id: "bash_3" })).toBe(jobAgnosticInputKey({ bash_id: "bash_7" }))
    expect(jobAgnosticInputKey({ shell_id: "bash_3" })).toBe(jobAgnosticInputKey({ shell_id: "bash_9" }))
    expect(jobAgnosticInputKey({ bash_id: "bash_3", filter: "ERROR" })).not.toBe(jobAgnosticInputKey({ bash_id: "bash_3", filter: "WARN" }))
    expect(jobAgnosticInputKey({ task_id: "t1" })).not.toBe(jobAgnosticInputKey({ task_id: "t2" }))
    // Killing nine shells, or reading two builds in turn, are calls on different jobs.
    expect(callInputKey({ shell_id: "bash_3" })).not.toBe(callInputKey({ shell_id: "bash_9" }))
  })
  test("a shell call's description (Claude Code, Gemini CLI) is no part of it; another tool's description is", () => {
    expect(callInputKey({ command: "npm test", description: "Run the tests" })).toBe(callInputKey({ command: "npm test", description: "Re-run the test suite" }))
    expect(callInputKey({ command: ["bash", "-lc", "ls"], justification: "look" })).toBe(callInputKey({ command: ["bash", "-lc", "ls"] }))
    expect(callInputKey({ title: "Bug", description: "crash on start" })).not.toBe(callInputKey({ title: "Bug", description: "crash on exit" }))
  })
  test("a task handed to a sub-agent (Claude Code's Task) is its prompt: its description is a label", () => {
    const task = (description: string, prompt: string) => callInputKey({ description, prompt, subagent_type: "general-purpose" })
    expect(task("Find the flaky test", "Find which test fails on CI and why")).toBe(task("Locate flaky test", "Find which test fails on CI and why"))
    expect(task("Find the flaky test", "Find which test fails on CI and why")).not.toBe(task("Find the flaky test", "Translate docs/a.md to French"))
  })
  test("calls that differ stay apart; flags keep their order; quoted text keeps its words", () => {
    expect(callInputKey({ command: "cat a.ts" })).not.toBe(callInputKey({ command: "cat b.ts" }))
    expect(foldCommand("ls -la")).toBe("ls -la")
    expect(foldCommand("ls ./")).toBe("ls ./")
    expect(foldCommand(`grep  "a  b" ./x`)).toBe(`grep "a b" ./x`)
    expect(callInputKey({ content: "a\n\nb" })).toBe(callInputKey({ content: "a b" }))
    expect(callInputKey(undefined)).toBe("null")
  })
})
