/**
 * Issue 11 item 8 (and the try-best event of item 9) over HTTP: Try-Best counters belong to the
 * session, so no-progress edits spread over two user turns still trip the action streak; only the
 * incident resets them. The pause event names the session, the agent and the model.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness } from "./harness.js"

const turn = (sessionId: string, prompt: string) => Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId, prompt }) })

const editTool = (): { tool: ToolDefinition; ran: Array<unknown> } => {
  const ran: Array<unknown> = []
  return {
    ran,
    tool: {
      spec: { name: "edit", description: "edit a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
      run: async (input) => {
        ran.push(input)
        const path = String(input["path"])
        return { state: "completed", output: "edited", path, diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old line for ${path}\n+new line for ${path} number ${ran.length}` }
      }
    }
  }
}

const edit = (path: string) => toolCallStream("edit", { path }, { id: `e-${path}` })
const config = (c: any) => ({ ...c, try_best: { ...c.try_best, enabled: true, action_streak: 4 } })

describe("Try-Best counters persist across the user turns of a session (issue 11 item 8)", () => {
  test("two no-progress edits per turn: the fourth, in the second turn, pauses; the event names agent and model", async () => {
    const e = editTool()
    const h = await makeHarness([edit("a.ts"), edit("b.ts"), textStream("Edited two files."), edit("c.ts"), edit("d.ts"), textStream("never reached")], {
      tools: [e.tool],
      config,
      modelId: "scripted-coder-1"
    })
    try {
      // One RunLoop for the session's life, as `loopguard chat` keeps it.
      const [first, second] = await h.run(Effect.all([turn("t", "Fix a and b"), turn("t", "Now fix c and d")]))
      expect(first.report.reason).toBe("final")
      expect(second.report.reason).toBe("try_best_paused")
      expect(e.ran).toHaveLength(4)
      expect(h.server.requests.length).toBe(5)
      const detected = h.events.find((x) => x.type === "session.try_best.detected")
      expect(detected).toMatchObject({ sessionId: "t", agent: "main", model: "scripted-coder-1", incident: expect.objectContaining({ kind: "action_streak", evidence: expect.objectContaining({ count: 4 }) }) })
    } finally {
      await h.close()
    }
  }, 30_000)

  test("another session starts from zero: the same two turns split over two sessions do not pause", async () => {
    const e = editTool()
    const h = await makeHarness([edit("a.ts"), edit("b.ts"), textStream("Edited two files."), edit("c.ts"), edit("d.ts"), textStream("Edited two more.")], {
      tools: [e.tool],
      config
    })
    try {
      const [one, two] = await h.run(Effect.all([turn("one", "Fix a and b"), turn("two", "Fix c and d")]))
      expect(one.report.reason).toBe("final")
      expect(two.report.reason).toBe("final")
      expect(h.events.some((x) => x.type === "session.try_best.detected")).toBe(false)
    } finally {
      await h.close()
    }
  }, 30_000)
})

describe("a stored paused session shows its pause again when reopened (issue 11 item 9)", () => {
  test("reopened without a new turn: no model request, the same pause again; a new turn goes on", async () => {
    const e = editTool()
    const h = await makeHarness([edit("a.ts"), edit("b.ts"), edit("c.ts"), edit("d.ts"), textStream("Verified with the tests now.")], {
      tools: [e.tool],
      config
    })
    try {
      const reopen = Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "p" }) })
      const [paused, reopened, resumed] = await h.run(Effect.all([turn("p", "Fix four files"), reopen, turn("p", "Continue, and run the tests")]))
      expect(paused.report.reason).toBe("try_best_paused")
      expect(reopened.report.reason).toBe("try_best_paused")
      expect(reopened.incidents).toContainEqual(expect.objectContaining({ detector: "try-best", action: "pause", detail: expect.objectContaining({ kind: "action_streak", reopened: true }) }))
      expect(h.events.filter((x) => x.type === "session.try_best.detected")).toHaveLength(2)
      expect(resumed.report.reason).toBe("final")
      // 4 edit steps, nothing for the reopening, 1 step for the new turn.
      expect(h.server.requests.length).toBe(5)
    } finally {
      await h.close()
    }
  }, 30_000)
})
