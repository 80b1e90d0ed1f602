import { ReplyBuilder, type AssistantMessage } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import type { LoopguardEvent } from "../events/Events.js"
import { makeMemoryStore } from "../store/SessionStore.js"
import { makeCallRepair } from "./call-repair.js"
import type { StreamMonitor } from "./monitors.js"
import { runToolCall, type ToolCallPart, type ToolRunContext, type ToolRunDeps } from "./run-tool.js"

const fixture = (over: Partial<ToolRunContext> = {}) => {
  const events: Array<LoopguardEvent> = []
  const ran: Array<unknown> = []
  const stored: Array<AssistantMessage> = []
  const store = makeMemoryStore()
  const deps: ToolRunDeps = {
    events: { publish: (e) => Effect.sync(() => void events.push(e)), subscribe: undefined as never },
    tools: { specs: [], execute: (call) => Effect.sync(() => (ran.push(call.input), { state: "completed" as const, output: "ok" })) },
    gate: { beforeCall: () => Effect.succeed({ _tag: "allow" as const }) },
    store: { ...store, putAssistant: (id, m) => Effect.sync(() => void stored.push(m)).pipe(Effect.andThen(store.putAssistant(id, m))) },
    repairs: makeCallRepair(DEFAULT_CONFIG)
  }
  const reply = new ReplyBuilder("a1", "u0", 0)
  const ctx: ToolRunContext = { sessionId: "s", step: 0, reply, monitors: [], system: undefined, localTools: undefined, incidents: [], ...over }
  const call = (part: ToolCallPart) => {
    reply.push(part)
    return Effect.runPromise(runToolCall(deps, ctx, part))
  }
  return { events, ran, stored, ctx, reply, call }
}

const part = (input: unknown, extra: Partial<ToolCallPart> = {}): ToolCallPart => ({ type: "tool-call", id: "c1", name: "bash", input, ...extra })
const toolOf = (reply: ReplyBuilder) => reply.build().parts.find((p) => p.type === "tool")

describe("runToolCall: the order of checks", () => {
  test("unreadable arguments are refused first: nothing runs, the error is the result, an incident is filed", async () => {
    const f = fixture()
    expect(await f.call(part(`{"command": "rm -rf bu`, { inputText: `{"command": "rm -rf bu`, argumentsError: "tool arguments were cut off" }))).toBeNull()
    expect(f.ran).toEqual([])
    expect(toolOf(f.reply)).toMatchObject({ state: "error", error: expect.stringContaining("Nothing was executed") })
    expect(f.ctx.incidents).toEqual([expect.objectContaining({ detector: "tool-arguments", action: "refused", kind: "recovery" })])
  })
  test("a benign JSON repair runs and is filed with what the model wrote", async () => {
    const f = fixture()
    await f.call(part({ command: "ls" }, { inputText: "{'command': 'ls',}", argumentsRepaired: true }))
    expect(f.ran).toEqual([{ command: "ls" }])
    expect(f.ctx.incidents[0]).toMatchObject({ detector: "repair", detail: { repairs: ["argument JSON repaired"], raw: "{'command': 'ls',}" } })
  })
  test("held-back tools answer without running", async () => {
    const f = fixture({ toolsPaused: "tools cool down after an error storm" })
    await f.call(part({ command: "ls" }))
    expect(f.ran).toEqual([])
    expect(toolOf(f.reply)).toMatchObject({ state: "error", error: "tools cool down after an error storm" })
  })
  test("a monitor's beforeTool trip stops the call before it runs and is handed back", async () => {
    const dup: StreamMonitor = { name: "rollback", beforeTool: () => ({ outcome: "halt", monitor: "duplicate-query", reason: "not run: duplicate" }) }
    const f = fixture({ monitors: [dup] })
    expect(await f.call(part({ q: "x" }))).toEqual({ outcome: "halt", monitor: "duplicate-query", reason: "not run: duplicate" })
    expect(f.ran).toEqual([])
    expect(toolOf(f.reply)).toMatchObject({ state: "error", error: "not run: duplicate" })
  })
  test("a call that runs is written ahead as running, then stored finished", async () => {
    const f = fixture()
    await f.call(part({ command: "ls" }))
    expect(f.stored.map((m) => m.parts.find((p) => p.type === "tool")?.type === "tool" && (m.parts.find((p) => p.type === "tool") as { state: string }).state)).toEqual(["running", "completed"])
    expect(f.events.map((e) => e.type)).toEqual(["tool.started", "tool.finished"])
  })
})
