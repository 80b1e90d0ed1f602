/**
 * The audit of agents' own logs: the same run written by two agents is found to loop in the same
 * places, and a log read by detection audits as it does with its format named.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
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
})
