/**
 * Sub-agents and per-tool caps over HTTP, judged from the server's side: the child's own requests
 * (its prompt, its tools), its budget slice, the roll-up into the parent's report, the depth cap,
 * and calls past a tool's cap never running.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, type RunInput, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const shell = () => {
  const ran: Array<string> = []
  const tool: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async (input) => (ran.push(String(input["command"])), { state: "completed", output: `ran ${String(input["command"])}`, exitCode: 0 })
  }
  return { tool, ran }
}
const firstUser = (body: any): string => body.messages.find((m: any) => m.role === "user")?.content
const toolNames = (body: any): Array<string> => (body.tools ?? []).map((t: any) => t.function.name)
const run = (input: Partial<RunInput> = {}) =>
  Effect.gen(function* () {
    return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "Summarise the repository", ...input })
  })
const usage = (n: number) => ({ usage: { prompt_tokens: n, completion_tokens: 0 } })

describe("sub-agents over HTTP", () => {
  it.live("the task tool runs a child in its own session; its answer and usage roll up into the parent", () => Effect.gen(function* () {
    const sh = shell()
    const h = yield* harness(
      [
        toolCallStream("task", { description: "list src", prompt: "List the src folder and say what is in it." }, { id: "t1", ...usage(100) }),
        toolCallStream("bash", { command: "ls src" }, { id: "b1", ...usage(40) }),
        textStream("src holds a.ts and b.ts.", usage(60)),
        textStream("The repository has two source files.", usage(120))
      ],
      { tools: [sh.tool], config: (c) => ({ ...c, subagents: { ...c.subagents, enabled: true } }) }
    )
    const r = yield* h.provide(run())
    const [parent, child1, child2, parentAgain] = h.server.requests.map((q) => q.body)
    expect(firstUser(parent)).toBe("Summarise the repository")
    expect(toolNames(parent)).toEqual(["bash", "task"])
    expect(firstUser(child1)).toBe("List the src folder and say what is in it.")
    expect(toolNames(child1)).toEqual(["bash", "task"])
    expect(JSON.stringify(child2.messages)).toContain("ran ls src")
    expect(JSON.stringify(parentAgain.messages)).toContain("Sub-agent completed (final) after 2 step(s), 100 tokens.\\nsrc holds a.ts and b.ts.")
    expect(sh.ran).toEqual(["ls src"])
    expect(r.report.reason).toBe("final")
    // The parent's 2 steps and the child's 2: the child's count against the parent's cap, as its tokens do.
    expect(r.report.stepsUsed).toBe(4)
    expect(r.report.tokens.total).toBe(320)
    expect(r.report.subagents).toEqual([
      { sessionId: "s/task-0-1", step: 0, depth: 1, status: "completed", reason: "final", stepsUsed: 2, tokens: { input: 100, output: 0, total: 100 }, costUsd: null }
    ])
  }), 30_000)

  it.live("the child's budget slice: half of the parent's remaining tokens, then the child stops budget_tokens", () => Effect.gen(function* () {
    const sh = shell()
    const h = yield* harness(
      [
        toolCallStream("task", { prompt: "Explore the tests." }, { id: "t1", ...usage(200) }),
        toolCallStream("bash", { command: "ls test" }, { id: "b1", ...usage(500) }),
        toolCallStream("bash", { command: "ls test/unit" }, { id: "b2", ...usage(500) }),
        textStream("I will do it myself.", usage(100))
      ],
      {
        tools: [sh.tool],
        config: (c) => ({ ...c, loop: { ...c.loop, tokenBudget: 2000 }, subagents: { ...c.subagents, enabled: true } })
      }
    )
    const r = yield* h.provide(run())
    expect(h.server.requests.length).toBe(4)
    // The slice is cut from what the parent had left when its step began (its own step is metered
    // when the step ends): half of 2000, so two child steps of 500 spend it.
    const child = r.incidents.find((i) => i.detector === "subagent")!
    expect(child.detail).toMatchObject({ reason: "budget_tokens", stepsUsed: 2, budget: { tokenBudget: 1000 } })
    expect(JSON.stringify(h.server.requests[3]!.body.messages)).toContain("Sub-agent aborted (budget_tokens) after 2 step(s), 1000 tokens.")
    expect(r.report.tokens.total).toBe(1300)
    expect(r.report.reason).toBe("final")
  }), 30_000)

  it.live("depth cap: a child at subagents.maxDepth is not offered the task tool", () => Effect.gen(function* () {
    const h = yield* harness(
      [toolCallStream("task", { prompt: "Look deeper." }, { id: "t1" }), textStream("Nothing deeper."), textStream("Done.")],
      { tools: [shell().tool], config: (c) => ({ ...c, subagents: { ...c.subagents, enabled: true, maxDepth: 1 } }) }
    )
    const r = yield* h.provide(run())
    expect(toolNames(h.server.requests[0]!.body)).toEqual(["bash", "task"])
    expect(toolNames(h.server.requests[1]!.body)).toEqual(["bash"])
    expect(r.report.subagents?.[0]).toMatchObject({ depth: 1, reason: "final" })
  }), 30_000)

  it.live("a library child: its budget slice caps its steps; deeper than the cap it never starts", () => Effect.gen(function* () {
    const h = yield* harness([toolCallStream("bash", { command: "ls" }, { id: "b1" }), textStream("never")], { tools: [shell().tool] })
    const child = yield* h.provide(run({ sessionId: "child", role: "subagent", depth: 1, budget: { maxSteps: 1 } }))
    expect(child.report.reason).toBe("max_steps")
    expect(h.server.requests.length).toBe(1)
    const tooDeep = yield* h.provide(run({ sessionId: "deep", depth: 3 }))
    expect(tooDeep.report.reason).toBe("depth_limit")
    expect(tooDeep.report.error?.tag).toBe("DepthLimitError")
    expect(h.server.requests.length).toBe(1)
  }), 30_000)
})

describe("per-tool call caps over HTTP", () => {
  it.live("a call past toolCaps.perTool is answered, not run, and filed", () => Effect.gen(function* () {
    const sh = shell()
    const h = yield* harness(
      [1, 2, 3].map((i) => toolCallStream("bash", { command: `ls dir${i}` }, { id: `c${i}` })).concat([textStream("Done with two listings.")]),
      { tools: [sh.tool], config: (c) => ({ ...c, toolCaps: { maxCallsPerTool: null, perTool: { bash: 2 } } }) }
    )
    const r = yield* h.provide(run())
    expect(sh.ran).toEqual(["ls dir1", "ls dir2"])
    expect(JSON.stringify(h.server.requests[3]!.body.messages)).toContain("not run: bash reached its cap of 2 calls in this run")
    expect(r.report.incidents).toContainEqual({ step: 2, detector: "tool-cap", action: "refused" })
    expect(r.report.reason).toBe("final")
  }), 30_000)
})
