import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const run = Effect.gen(function* () {
  const result = yield* (yield* RunLoop).run({ sessionId: "r", prompt: "Find the release date" })
  return { result, stored: yield* (yield* SessionStore).messages("r") }
})
const body = (h: { server: { requests: Array<{ body: any }> } }, i: number) => JSON.stringify(h.server.requests[i]!.body.messages)
const search: ToolDefinition = {
  spec: { name: "search", description: "web search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: input["q"] === "broken" ? "Error executing tool search: upstream timeout" : "2024-05-01" })
}

describe("rollback over HTTP", () => {
  it.live("a refusal is popped and retried without spending a turn; the next request no longer carries it", () => Effect.gen(function* () {
    const h = yield* harness([textStream("I'm sorry, but I can't help with that."), textStream("It was released on 1 May 2024.")])
    const { result, stored } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
    expect(result.report.stepsUsed).toBe(1)
    expect(body(h, 1)).not.toContain("I'm sorry")
    expect(stored.some((m) => m.role === "assistant" && m.excluded === "rollback")).toBe(true)
    expect(result.incidents.find((i) => i.detector === "rollback")).toMatchObject({ action: "rollback", detail: { kind: "refusal" } })
  }))

  it.live("tool-call markup leaked into a 'final' answer is rolled back instead of accepted", () => Effect.gen(function* () {
    const leak = '<use_mcp_tool><server_name>web</server_name><tool_name>search</tool_name><arguments>{"q":"release"}</arguments></use_mcp_tool>'
    const h = yield* harness([textStream(leak), textStream("1 May 2024.")])
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
    expect(result.report.finalText).toBe("1 May 2024.")
    expect(body(h, 1)).not.toContain("use_mcp_tool")
  }))

  it.live("a useless tool result is rolled back with its reply", () => Effect.gen(function* () {
    const h = yield* harness([toolCallStream("search", { q: "broken" }), toolCallStream("search", { q: "release date" }, { id: "c2" }), textStream("1 May 2024.")], {
      tools: [search]
    })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
    expect(body(h, 1)).not.toContain("upstream timeout")
    expect(body(h, 2)).toContain("2024-05-01")
  }))

  it.live("refusing again and again hits the cap and ends the loop with rollback_cap", () => Effect.gen(function* () {
    const refusals: Array<ScriptedResponse> = Array.from({ length: 8 }, () => textStream("I cannot help with that request."))
    const h = yield* harness(refusals, { config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: true, maxConsecutiveRollbacks: 3 } }) })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("rollback_cap")
    expect(h.server.requests.length).toBe(3)
  }))

  it.live("in-place repair: aliases from the config table and null arguments are fixed before the tool runs, no retry", () => Effect.gen(function* () {
    const seen: Array<unknown> = []
    const bash: ToolDefinition = {
      spec: { name: "bash", description: "shell", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      run: async (input) => (seen.push(input), { state: "completed", output: "ok", exitCode: 0 })
    }
    const h = yield* harness([toolCallStream("bash", { cmd: "ls", timeout: null }), textStream("Listed.")], {
      tools: [bash],
      config: (c) => ({ ...c, repair: { ...c.repair, tools: { bash: { aliases: { cmd: "command" } } } } })
    })
    const { result, stored } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
    expect(seen).toEqual([{ command: "ls" }])
    expect(h.server.requests.length).toBe(2)
    expect(JSON.stringify(stored)).toContain('"input":{"command":"ls"}')
  }))

  it.live("switched off, a refusal is simply the final answer", () => Effect.gen(function* () {
    const h = yield* harness([textStream("I cannot help with that request.")], { config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: false } }) })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
  }))
})
