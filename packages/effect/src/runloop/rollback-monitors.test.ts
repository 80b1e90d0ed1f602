import { RollbackGuard } from "@loopguard/core/rollback"
import type { AssistantMessage } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import { rollbackMonitors } from "./rollback-monitors.js"

const search = (id: string): AssistantMessage => ({
  role: "assistant",
  id,
  parentId: "u",
  step: 1,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c-${id}`, name: "search_dir", input: { argv: ["x"] }, state: "completed", output: "Found 1 match" }]
})

describe("rollbackMonitors puts the guard's in-step checks on the stream", () => {
  test("a duplicate query inside a loop episode halts before it runs; an error result halts the step's other calls", () => {
    // The full config is the guard's config as it stands: it satisfies the core shape structurally.
    const guard = new RollbackGuard(DEFAULT_CONFIG, "main", () => true)
    const [factory] = rollbackMonitors(guard, false)
    const monitor = factory!({ step: 2, attempt: 1 })
    const call = { id: "c2", name: "search_dir", input: { argv: ["x"] } }
    expect(monitor.beforeTool?.(call, 2)).toBeNull()
    expect(guard.afterStep(search("r1"))).toBeNull()
    expect(monitor.beforeTool?.(call, 2)).toMatchObject({ outcome: "halt", monitor: "duplicate-query" })
    const failed = { type: "tool" as const, callId: "c3", name: "search", input: { q: "y" }, state: "completed" as const, output: "Error executing tool search: timeout" }
    expect(monitor.onToolFinished?.(failed, 2)).toMatchObject({ outcome: "halt", monitor: "useless-result" })
  })

  test("shadow mode adds no monitor", () => {
    expect(rollbackMonitors(new RollbackGuard(DEFAULT_CONFIG, "main"), true)).toEqual([])
  })
})
