import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness } from "./harness.js"

const run = Effect.gen(function* () {
  const result = yield* (yield* RunLoop).run({ sessionId: "r", prompt: "Find the release date" })
  return { result, stored: yield* (yield* SessionStore).messages("r") }
})
const body = (h: { server: { requests: Array<{ body: any }> } }, i: number) => JSON.stringify(h.server.requests[i]!.body.messages)
const search: ToolDefinition = {
  spec: { name: "search", description: "web search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: input["q"] === "broken" ? "Error executing tool search: upstream timeout" : "2024-05-01" })
}

describe("rollback over HTTP (SPEC §7)", () => {
  test("a refusal is popped and retried without spending a turn; the next request no longer carries it", async () => {
    const h = await makeHarness([textStream("I'm sorry, but I can't help with that."), textStream("It was released on 1 May 2024.")])
    try {
      const { result, stored } = await h.run(run)
      expect(result.report.reason).toBe("final")
      expect(result.report.stepsUsed).toBe(1)
      expect(body(h, 1)).not.toContain("I'm sorry")
      expect(stored.some((m) => m.role === "assistant" && m.excluded === "rollback")).toBe(true)
      expect(result.incidents.find((i) => i.detector === "rollback")).toMatchObject({ action: "rollback", detail: { kind: "refusal" } })
    } finally {
      await h.close()
    }
  })

  test("tool-call markup leaked into a 'final' answer is rolled back instead of accepted", async () => {
    const leak = '<use_mcp_tool><server_name>web</server_name><tool_name>search</tool_name><arguments>{"q":"release"}</arguments></use_mcp_tool>'
    const h = await makeHarness([textStream(leak), textStream("1 May 2024.")])
    try {
      const { result } = await h.run(run)
      expect(result.report.reason).toBe("final")
      expect(result.report.finalText).toBe("1 May 2024.")
      expect(body(h, 1)).not.toContain("use_mcp_tool")
    } finally {
      await h.close()
    }
  })

  test("a useless tool result is rolled back with its reply", async () => {
    const h = await makeHarness([toolCallStream("search", { q: "broken" }), toolCallStream("search", { q: "release date" }, { id: "c2" }), textStream("1 May 2024.")], {
      tools: [search]
    })
    try {
      const { result } = await h.run(run)
      expect(result.report.reason).toBe("final")
      expect(body(h, 1)).not.toContain("upstream timeout")
      expect(body(h, 2)).toContain("2024-05-01")
    } finally {
      await h.close()
    }
  })

  test("refusing again and again hits the cap and ends the loop with rollback_cap", async () => {
    const refusals: Array<ScriptedResponse> = Array.from({ length: 8 }, () => textStream("I cannot help with that request."))
    const h = await makeHarness(refusals, { config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: true, maxConsecutiveRollbacks: 3 } }) })
    try {
      const { result } = await h.run(run)
      expect(result.report.reason).toBe("rollback_cap")
      expect(h.server.requests.length).toBe(3)
    } finally {
      await h.close()
    }
  })

  test("in-place repair: aliases from the config table and null arguments are fixed before the tool runs, no retry", async () => {
    const seen: Array<unknown> = []
    const bash: ToolDefinition = {
      spec: { name: "bash", description: "shell", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      run: async (input) => (seen.push(input), { state: "completed", output: "ok", exitCode: 0 })
    }
    const h = await makeHarness([toolCallStream("bash", { cmd: "ls", timeout: null }), textStream("Listed.")], {
      tools: [bash],
      config: (c) => ({ ...c, repair: { ...c.repair, tools: { bash: { aliases: { cmd: "command" } } } } })
    })
    try {
      const { result, stored } = await h.run(run)
      expect(result.report.reason).toBe("final")
      expect(seen).toEqual([{ command: "ls" }])
      expect(h.server.requests.length).toBe(2)
      expect(JSON.stringify(stored)).toContain('"input":{"command":"ls"}')
    } finally {
      await h.close()
    }
  })

  test("switched off, a refusal is simply the final answer", async () => {
    const h = await makeHarness([textStream("I cannot help with that request.")], { config: (c) => ({ ...c, rollback: { ...c.rollback, enabled: false } }) })
    try {
      const { result } = await h.run(run)
      expect(result.report.reason).toBe("final")
    } finally {
      await h.close()
    }
  })
})
