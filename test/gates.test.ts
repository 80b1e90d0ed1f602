import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { existsSync, writeFileSync } from "node:fs"

import { join } from "node:path"
import { it } from "./effect-test.js"
import { tempDir } from "./scoped-resources.js"
import { harness } from "./harness.js"

const run = Effect.gen(function* () {
  return yield* (yield* RunLoop).run({ sessionId: "g", prompt: "Create the done marker" })
})
const isEvaluator = (body: any) => JSON.stringify(body.messages?.[0] ?? {}).includes("strict evaluator")

describe("finish gates over HTTP", () => {
  it.live("a failing completion check sends the evidence back; the run finishes once the check passes", () => Effect.gen(function* () {
    const dir = yield* tempDir("lg-gate-")
    const marker = join(dir, "done")
    const touch: ToolDefinition = {
      spec: { name: "touch", description: "create the marker", inputSchema: { type: "object", properties: {} } },
      run: async () => (writeFileSync(marker, "ok"), { state: "completed", output: "created", exitCode: 0 })
    }
    const h = yield* harness([textStream("Done, the marker exists."), toolCallStream("touch", {}), textStream("Now it really exists.")], {
      tools: [touch],
      config: (c) => ({ ...c, completionCheck: { ...c.completionCheck, command: `test -f ${marker} || { echo "marker missing: ${marker}"; exit 3; }` } })
    })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("final")
    expect(existsSync(marker)).toBe(true)
    const second = JSON.stringify(h.server.requests[1]!.body.messages)
    expect(second).toContain("completion check")
    expect(second).toContain("marker missing")
    expect(r.incidents.filter((i) => i.detector === "completion-check").map((i) => i.action)).toEqual(["failed", "passed"])
  }))

  it.live("a check that never passes ends the run after maxFailures", () => Effect.gen(function* () {
    const h = yield* harness([textStream("Done."), textStream("Done again."), textStream("Really done.")], {
      config: (c) => ({ ...c, completionCheck: { command: "exit 1", timeoutMs: 10_000, maxFailures: 2 } })
    })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("completion_check_failed")
    expect(h.server.requests.length).toBe(2)
  }))

  it.live("the goal gate asks a separate tool-less evaluator; NOT MET feeds its verdict back", () => Effect.gen(function* () {
    let judged = 0
    const script = (body: any): ScriptedResponse => {
      if (isEvaluator(body)) {
        judged += 1
        return textStream(judged === 1 ? "NOT MET\nThe marker file was never created." : "MET\nThe marker exists.")
      }
      return textStream("I am finished.")
    }
    const h = yield* harness(script, { config: (c) => ({ ...c, goalGate: { enabled: true, maxChecks: 20 } }) })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("final")
    expect(judged).toBe(2)
    const evaluatorRequest = h.server.requests.find((q) => isEvaluator(q.body))!
    expect(evaluatorRequest.body.tools).toBeUndefined()
    const agentRequests = h.server.requests.filter((q) => !isEvaluator(q.body))
    expect(JSON.stringify(agentRequests[1]!.body.messages)).toContain("The marker file was never created.")
  }))

  it.live("the goal gate has its own cap", () => Effect.gen(function* () {
    const script = (body: any): ScriptedResponse => (isEvaluator(body) ? textStream("NOT MET\nstill wrong") : textStream("Finished."))
    const h = yield* harness(script, { config: (c) => ({ ...c, goalGate: { enabled: true, maxChecks: 2 } }) })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("goal_gate_cap")
    expect(h.server.requests.filter((q) => isEvaluator(q.body)).length).toBe(2)
  }))

  it.live("a try-best pause is never overridden by the goal gate", () => Effect.gen(function* () {
    let judged = 0
    const fail: ToolDefinition = {
      spec: { name: "bash", description: "shell", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      run: async () => ({ state: "completed", output: "1 failing", exitCode: 1 })
    }
    const script = (body: any, i: number): ScriptedResponse => {
      if (isEvaluator(body)) return (judged++, textStream("NOT MET\nkeep going"))
      return toolCallStream("bash", { command: "npm test" }, { id: `c${i}` })
    }
    const h = yield* harness(script, {
      tools: [fail],
      config: (c) => ({ ...c, goalGate: { enabled: true, maxChecks: 20 }, tryBest: { ...c.tryBest, enabled: true } })
    })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("try_best_paused")
    expect(r.report.status).toBe("paused")
    expect(judged).toBe(0)
  }))
})
