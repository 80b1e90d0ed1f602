/**
 * The audit of agents' own logs: the same run written by two agents is found to loop in the same
 * places, and a log read by detection audits as it does with its format named.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { auditFile } from "./audit-file.js"
import type { AuditResult } from "./audit-trace.js"

const FIXTURES = join(import.meta.dir, "../../../core/src/trace/formats/fixtures")

const audit = (name: string, format?: "claude-code" | "opencode" | "trace") =>
  Effect.runPromise(auditFile({ path: join(FIXTURES, name), name, ...(format ? { format } : {}) }))

const shape = (r: AuditResult) => {
  if (r._tag !== "audited") throw new Error(r.errors.join("; "))
  return { steps: r.steps, exit: r.exit, incidents: r.incidents.map((i) => [i.step, i.detector, i.action, i.kind]) }
}

describe("audit of agents' own logs", () => {
  test("one run written by Claude Code and by OpenCode: the same incidents at the same steps, the same first exit", async () => {
    const claude = await audit("claude-code.jsonl")
    const opencode = await audit("opencode.json")
    expect(claude).toMatchObject({ _tag: "audited", format: "claude-code" })
    expect(opencode).toMatchObject({ _tag: "audited", format: "opencode" })
    expect(shape(claude).incidents.length).toBeGreaterThan(3)
    expect(shape(claude)).toEqual(shape(opencode))
    // The run's loop: the same failing test command, three times after the edit.
    expect(shape(claude).incidents).toContainEqual([4, "repeated-action", "note", "loop"])
  }, 60_000)

  test("what a reader could not map is a note with file:line; a forced format is used as given", async () => {
    const r = await audit("claude-code.jsonl", "claude-code")
    if (r._tag !== "audited") throw new Error("expected an audit")
    expect(r.notes).toContain(`claude-code.jsonl:18: line type "bookmark" is not part of the conversation; skipped`)
    // Forced to trace v1, the same file fails: its lines are not trace v1 records.
    const forced = await audit("claude-code.jsonl", "trace")
    expect(forced._tag).toBe("failed")
  }, 60_000)

  test("a Qwen Code session that runs one failing command over and over: the loop is found, as in any agent's log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "loopguard-qwen-"))
    try {
      const record = (n: number, type: string, message: unknown) => JSON.stringify({ uuid: `u${n}`, parentUuid: n === 0 ? null : `u${n - 1}`, sessionId: "s-qwen", timestamp: "2026-11-30T10:00:00.000Z", type, cwd: "/w", version: "0.24.4", message })
      const lines = [record(0, "user", { role: "user", parts: [{ text: "Make the tests pass." }] })]
      for (let i = 0; i < 10; i++) {
        lines.push(record(lines.length, "assistant", { role: "model", parts: [{ text: "Running the tests again." }, { functionCall: { id: `c${i}`, name: "run_shell_command", args: { command: "npm test" } } }] }))
        lines.push(record(lines.length, "tool_result", { role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "run_shell_command", response: { output: "Command: npm test\nOutput: FAIL src/sum.test.ts\nExit Code: 1" } } }] }))
      }
      writeFileSync(join(dir, "session.jsonl"), lines.join("\n") + "\n")
      const r = await Effect.runPromise(auditFile({ path: join(dir, "session.jsonl"), name: "session.jsonl" }))
      expect(r).toMatchObject({ _tag: "audited", format: "qwen-code" })
      const { steps, incidents, exit } = shape(r)
      expect(steps).toBe(10)
      expect(incidents.some(([, detector]) => detector === "repeated-action")).toBe(true)
      expect(exit).not.toBeNull()
      expect(exit!.reason).not.toBe("final")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
