/**
 * Context compaction over HTTP, judged from the server's side: the tool-less summary request, the
 * next request carrying the summary instead of the older steps, and the store kept append-only.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { COMPACTION_REQUEST } from "@loopguard/core/context"
import { RunLoop, SessionStore, layerSqliteStore, type ToolDefinition } from "@loopguard/effect"
import { makeSqliteStore } from "@loopguard/effect/store"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "./effect-test.js"
import { harness, noRetries } from "./harness.js"

/** A listing tool with a long, distinct output per call, so the history grows fast. */
const lister: ToolDefinition = {
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async (input) => ({ state: "completed", output: `${String(input["command"])}:\n` + Array.from({ length: 40 }, (_, i) => `file-${i}.ts`).join("\n"), exitCode: 0 })
}
const listing = (i: number) => toolCallStream("bash", { command: `ls dir${i}` }, { id: `c${i}` })
const summaryReply = textStream("SUMMARY: listed dir0 to dir3; nothing changed yet.")
const lastUser = (body: any): string => {
  const users = body.messages.filter((m: any) => m.role === "user")
  const content = users.at(-1)?.content
  return typeof content === "string" ? content : JSON.stringify(content)
}
const run = Effect.gen(function* () {
  const result = yield* (yield* RunLoop).run({ sessionId: "s", prompt: "Find where the config is read" })
  return { result, stored: yield* (yield* SessionStore).messages("s") }
})

describe("context compaction over HTTP", () => {
  it.live("near the limit: one tool-less summary request, then the summary replaces the older steps", () => Effect.gen(function* () {
    // Each listing adds about 120 tokens; a 1000-token context with a 0.8 trigger compacts after a few steps.
    const script: Array<ScriptedResponse> = [listing(0), listing(1), listing(2), listing(3), listing(4), summaryReply, listing(5), textStream("Found it in src/config.ts.")]
    const h = yield* harness(script, {
      tools: [lister],
      // Five listings with the same output (numbers masked) are a repeated observation, whose note
      // would be the request's last message; this test is about compaction alone.
      config: (c) => ({
        ...c,
        compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2 },
        repeatedObservation: { ...c.repeatedObservation, enabled: false }
      })
    })
    const { result, stored } = yield* h.provide(run)
    const bodies = h.server.requests.map((q) => q.body)
    const summaryAt = bodies.findIndex((b) => lastUser(b) === COMPACTION_REQUEST)
    expect(summaryAt).toBeGreaterThan(0)
    expect(bodies[summaryAt].tools).toBeUndefined()
    // The request after the summary: the summary, not the older listings; the recent ones whole.
    const after = JSON.stringify(bodies[summaryAt + 1].messages)
    expect(after).toContain("SUMMARY: listed dir0 to dir3")
    expect(after).not.toContain("ls dir0")
    expect(after).toContain("Find where the config is read")
    expect(JSON.stringify(bodies[summaryAt + 1].messages.at(-1))).toContain(`ls dir${summaryAt - 1}`)
    // Append-only: every listing is still in the store; the summary is one more message.
    for (const i of [0, 1, 2, 3, 4, 5]) expect(JSON.stringify(stored)).toContain(`ls dir${i}`)
    expect(stored.filter((m) => m.role === "user" && m.synthetic === "compaction")).toHaveLength(1)
    expect(result.report.reason).toBe("final")
    expect(result.report.retries["compaction"]).toBe(1)
    expect(result.report.stepsUsed).toBe(h.server.requests.length - 1)
  }), 30_000)

  it.live("a runaway summary (300 KB) is cut at compaction.maxSummaryChars before it is stored and sent again", () => Effect.gen(function* () {
    const huge = textStream("SUMMARY " + "so much detail ".repeat(20_000))
    const script: Array<ScriptedResponse> = [listing(0), listing(1), listing(2), listing(3), listing(4), huge, listing(5), textStream("Found it.")]
    const h = yield* harness(script, {
      tools: [lister],
      config: (c) => ({
        ...c,
        compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2, maxSummaryChars: 400 },
        repeatedObservation: { ...c.repeatedObservation, enabled: false }
      })
    })
    const { result, stored } = yield* h.provide(run)
    const summary = stored.find((m) => m.role === "user" && m.synthetic === "compaction")
    expect(summary?.role === "user" ? summary.text.length : 0).toBeLessThan(700)
    expect(summary?.role === "user" ? summary.text : "").toEndWith("[summary cut at 400 characters (compaction.maxSummaryChars)]")
    const bodies = h.server.requests.map((q) => q.body)
    const summaryAt = bodies.findIndex((b) => lastUser(b) === COMPACTION_REQUEST)
    // Every later request carries the cut summary, not the megabyte.
    for (const body of bodies.slice(summaryAt + 1)) expect(JSON.stringify(body).length).toBeLessThan(40_000)
    expect([result.report.reason, result.report.error?.message]).toEqual(["final", undefined])
  }), 60_000)

  it.live("the provider says the context is exceeded: compact, then the same step again", () => Effect.gen(function* () {
    const overflow: ScriptedResponse = {
      type: "error",
      status: 400,
      body: { error: { message: "This model's maximum context length is 4096 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } }
    }
    const script: Array<ScriptedResponse> = [listing(0), listing(1), listing(2), overflow, summaryReply, textStream("Found it.")]
    const h = yield* harness(script, { tools: [lister], config: (c) => ({ ...noRetries(c), compaction: { ...c.compaction, keepRecentSteps: 1 } }) })
    const { result, stored } = yield* h.provide(run)
    expect(h.server.requests.length).toBe(6)
    expect(lastUser(h.server.requests[4]!.body)).toBe(COMPACTION_REQUEST)
    const retried = JSON.stringify(h.server.requests[5]!.body.messages)
    expect(retried).toContain("SUMMARY:")
    expect(retried).not.toContain("ls dir0")
    expect(retried).toContain("ls dir2")
    expect(result.report.reason).toBe("final")
    expect(result.report.incidents).toContainEqual({ step: 3, detector: "compaction", action: "compacted" })
    // The refused attempt stays in the store, left out of requests.
    expect(stored.some((m) => m.role === "assistant" && m.excluded === "replayed" && m.error !== undefined)).toBe(true)
  }), 30_000)

  it.live("compactions feed the stall signal: with stall on, reaching stall.maxCompactions pauses the run", () => Effect.gen(function* () {
    const script: Array<ScriptedResponse> = [listing(0), listing(1), listing(2), listing(3), listing(4), summaryReply, listing(5), textStream("never")]
    const h = yield* harness(script, {
      tools: [lister],
      config: (c) => ({
        ...c,
        compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2 },
        stall: { ...c.stall, enabled: true, maxCompactions: 1, noFileChangeSteps: null, spendFlatWindow: null }
      })
    })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("try_best_paused")
    expect(result.incidents.filter((i) => i.detector === "stall-compactions").map((i) => i.action)).toEqual(["pause"])
    expect(h.server.requests.length).toBe(7)
  }), 30_000)

  it.live("a summary request that stalls fails the compaction, not the run: the next request goes out uncompacted", () => Effect.gen(function* () {
    const stalledSummary: ScriptedResponse = { type: "stream", chunks: [{ text: "SUMMARY: partial" }, { text: " rest" }], finish: "stop", stallAfterChunks: 1 }
    const h = yield* harness([listing(0), listing(1), listing(2), listing(3), listing(4), stalledSummary, textStream("Found it.")], {
      tools: [lister],
      config: (c) => ({
        ...c,
        stream: { ...c.stream, chunkTimeoutMs: 300 },
        compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2, maxCompactions: 1 }
      })
    })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("final")
    expect(result.incidents.find((i) => i.detector === "compaction")).toMatchObject({ action: "failed", detail: { error: expect.stringContaining("stream.chunkTimeoutMs") } })
    const next = JSON.stringify(h.server.requests[6]!.body.messages)
    expect(next).toContain("ls dir0")
    expect(next).not.toContain("SUMMARY")
    yield* Effect.promise(() => h.server.requests[5]!.done)
    expect(h.server.requests[5]!.closedEarly).toBe(true)
  }), 30_000)

  it.live("compactions are capped: past the cap an overflow ends the run as a model error", () => Effect.gen(function* () {
    const overflow: ScriptedResponse = { type: "error", status: 400, body: { error: { message: "prompt is too long", type: "invalid_request_error" } } }
    const h = yield* harness([listing(0), listing(1), listing(2), overflow], {
      tools: [lister],
      config: (c) => ({ ...noRetries(c), compaction: { ...c.compaction, maxCompactions: 0 } })
    })
    const { result } = yield* h.provide(run)
    expect(result.report.reason).toBe("model_error")
    expect(h.server.requests.length).toBe(4)
    expect(result.report.incidents).toContainEqual({ step: 3, detector: "compaction", action: "cap" })
  }), 30_000)

  it.live("a compaction survives a restart: a new process over the same session files sends the summary, not the old steps", () => Effect.gen(function* () {
    const dir = mkdtempSync(join(tmpdir(), "lg-compaction-"))
    const compactNow = (c: any) => ({ ...c, compaction: { ...c.compaction, contextTokens: 1000, keepRecentSteps: 2 } })
    const first = yield* harness([listing(0), listing(1), listing(2), listing(3), listing(4), summaryReply, textStream("Stopping here.")], {
      tools: [lister],
      config: compactNow,
      store: layerSqliteStore(dir)
    })
    expect((yield* first.provide(run)).result.report.retries["compaction"]).toBe(1)
    // Append-only in the store: the summary is one more message, every listing is still there.
    const file = JSON.stringify(yield* Effect.scoped(Effect.flatMap(makeSqliteStore(dir), (st) => st.messages("s"))))
    expect(file).toContain('"synthetic":"compaction"')
    for (const i of [0, 1, 2, 3, 4]) expect(file).toContain(`ls dir${i}`)
    const second = yield* harness([textStream("Carrying on.")], { tools: [lister], store: layerSqliteStore(dir) })
    yield* second.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "Carry on" }) }))
    const sent = JSON.stringify(second.server.requests[0]!.body.messages)
    expect(sent).toContain("SUMMARY: listed dir0 to dir3")
    expect(sent).not.toContain("ls dir0")
    expect(sent).toContain("Carry on")
  }), 30_000)
})
