/**
 * Resume without surprises, over HTTP with the real provider and a SQLite
 * store, judged from the requests the scripted server received and from a marker file the tool
 * appends to: a call cut off mid-run is shown to the model as interrupted and never re-run; a
 * resumed session re-examines its last reply before asking for anything.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { layerSqliteStore, RunLoop, SessionStore, type ToolDefinition } from "@loopguard/effect"
import { makeSqliteStore } from "@loopguard/effect/store"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const TIMEOUT = 30_000
const fresh = () => mkdtempSync(join(tmpdir(), "lg-resume-"))
const markerLines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "") : [])

/** A tool that records that it ran, then never finishes on its own (the run is cancelled under it). */
const hangingTool = (marker: string, started: () => void): ToolDefinition => ({
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: (input) => {
    appendFileSync(marker, `${String(input["command"])}\n`)
    started()
    return new Promise(() => {})
  }
})

const seed = (dir: string, messages: ReadonlyArray<Message>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* makeSqliteStore(dir)
        for (const m of messages) yield* m.role === "user" ? store.append("s", m) : store.putAssistant("s", m)
      })
    )
  )

const reply = (id: string, extra: Partial<AssistantMessage>): AssistantMessage => ({ role: "assistant", id, parentId: "u0", step: 0, parts: [], ...extra })

describe("resume over HTTP", () => {
  it.live("a tool call cut off by a cancel is told to the model as interrupted on resume, and not run again", () => Effect.gen(function* () {
    const dir = fresh()
    const marker = join(dir, "marker.txt")
    const controller = new AbortController()
    const first = yield* harness([toolCallStream("bash", { command: "deploy --prod" }, { id: "c1" })], {
      tools: [hangingTool(marker, () => setTimeout(() => controller.abort(), 50))],
      store: layerSqliteStore(dir)
    })
    const cancelled = yield* first.provide(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s", prompt: "ship it", signal: controller.signal })))
    expect(cancelled.report.reason).toBe("cancelled")
    expect(markerLines(marker)).toEqual(["deploy --prod"])

    const second = yield* harness([textStream("I will check whether the deploy happened before anything else.")], {
      tools: [hangingTool(marker, () => {})],
      store: layerSqliteStore(dir)
    })
    const resumed = yield* second.provide(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s" })))
    expect(resumed.report.reason).toBe("final")
    const sent = second.server.requests[0]!.body.messages as ReadonlyArray<{ role: string; content?: unknown; tool_calls?: ReadonlyArray<{ id: string; function: { arguments: string } }>; tool_call_id?: string }>
    // The call is in the request, answered with what is known: it started, its outcome is unknown.
    const call = sent.find((m) => m.role === "assistant" && m.tool_calls?.some((c) => c.id === "c1"))
    expect(call?.tool_calls?.[0]?.function.arguments).toContain("deploy --prod")
    const result = sent.find((m) => m.role === "tool" && m.tool_call_id === "c1")
    expect(String(result?.content)).toContain("interrupted: this bash call (step 0) was started but its result was never recorded")
    expect(String(result?.content)).toContain("may or may not have taken effect")
    // Never silently re-run.
    expect(markerLines(marker)).toEqual(["deploy --prod"])
  }), TIMEOUT)

  it.live("a resumed session whose last reply was cut off by the length limit asks to continue first", () => Effect.gen(function* () {
    const dir = fresh()
    yield* Effect.promise(() => seed(dir, [{ role: "user", id: "u0", text: "write the essay" }, reply("a1", { parts: [{ type: "text", text: "The essay begins and then" }], finish: "length" })]))
    const h = yield* harness([textStream("…and ends here.")], { store: layerSqliteStore(dir) })
    const r = yield* h.provide(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s" })))
    expect(r.report.reason).toBe("final")
    const sent = h.server.requests[0]!.body.messages as ReadonlyArray<{ role: string; content?: unknown }>
    const lastUser = [...sent].reverse().find((m) => m.role === "user")
    expect(String(lastUser?.content)).toMatch(/continue (exactly )?from where you stopped/i)
    expect(r.incidents).toContainEqual(expect.objectContaining({ detector: "resume", action: "reexamined:remind" }))
  }), TIMEOUT)

  it.live("a resumed session whose last reply was already a final answer makes no request", () => Effect.gen(function* () {
    const dir = fresh()
    yield* Effect.promise(() => seed(dir, [{ role: "user", id: "u0", text: "what is 2+2" }, reply("a1", { parts: [{ type: "text", text: "4" }], finish: "stop" })]))
    const h = yield* harness([textStream("should not be asked")], { store: layerSqliteStore(dir) })
    const r = yield* h.provide(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s" })))
    expect(r.report.reason).toBe("final")
    expect(h.server.requests).toHaveLength(0)
    const stored = yield* h.provide(Effect.flatMap(SessionStore, (s) => s.messages("s")))
    expect(stored.map((m) => m.id)).toEqual(["u0", "a1"])
  }), TIMEOUT)
})
