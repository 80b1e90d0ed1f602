/**
 * The error-storm breaker's ladder in the running loop, judged from the server's side: degrade
 * (the reminder and the cooldown in the next requests), reroute (the fallback model's requests),
 * hand back (circuit_open), and that calls during the cooldown never run.
 */
import { toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop, type ToolDefinition } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"
import { harness } from "./harness.js"

const failingShell = () => {
  const ran: Array<string> = []
  const tool: ToolDefinition = {
    spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
    run: async (input) => (ran.push(String(input["command"])), { state: "completed", output: "make: *** [all] Error 2", exitCode: 2 })
  }
  return { tool, ran }
}

const calls = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => toolCallStream("bash", { command: `make target${from + k}` }, { id: `c${from + k}` }))
const text = (body: any) => JSON.stringify(body.messages)
const run = Effect.gen(function* () {
  return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "Build the project" })
})

describe("breaker ladder over HTTP", () => {
  it.live("degrade → cooldown → reroute to the fallback model → cooldown → hand back", () => Effect.gen(function* () {
    const shell = failingShell()
    const h = yield* harness(calls(0, 13), { tools: [shell.tool], fallbackModelId: "fallback-model" })
    const r = yield* h.provide(run)
    const models = h.server.requests.map((q) => q.body.model)
    expect(h.server.requests.length).toBe(13)
    // Rung 1, degrade after 3 failures: the reminder and the cooldown note reach request 3.
    expect(text(h.server.requests[3]!.body)).toContain("First restate the goal in one sentence, then try another method.")
    expect(text(h.server.requests[3]!.body)).toContain("Tool execution is paused for this step")
    // The two cooldown steps' calls were answered, never run.
    expect(shell.ran).not.toContain("make target3")
    expect(shell.ran).not.toContain("make target4")
    expect(text(h.server.requests[4]!.body)).toContain("not run: tool execution is paused after repeated tool failures (1 more step after this one)")
    // Rung 2, reroute after 3 fresh failures: every later request goes to the fallback model.
    expect(models.slice(0, 8)).toEqual(Array(8).fill(h.server.modelId))
    expect(models.slice(8)).toEqual(Array(5).fill("fallback-model"))
    expect(text(h.server.requests[8]!.body)).toContain("a different model takes over from here")
    expect(shell.ran).not.toContain("make target8")
    expect(shell.ran).not.toContain("make target9")
    // Rung 3, hand back.
    expect(r.report.reason).toBe("circuit_open")
    expect(r.report.error?.tag).toBe("CircuitOpenError")
    expect(shell.ran.length).toBe(9)
    const rungs = r.report.incidents.filter((i) => i.detector === "breaker").map((i) => `${i.step}:${i.action}`)
    expect(rungs).toEqual(["2:degrade", "7:reroute", "7:model-switched", "12:hand-back"])
  }), 30_000)

  it.live("without a fallback the ladder is degrade → hand back, all on the one model", () => Effect.gen(function* () {
    const shell = failingShell()
    const h = yield* harness(calls(0, 8), { tools: [shell.tool] })
    const r = yield* h.provide(run)
    expect(h.server.requests.length).toBe(8)
    expect(new Set(h.server.requests.map((q) => q.body.model))).toEqual(new Set([h.server.modelId]))
    expect(r.report.reason).toBe("circuit_open")
    expect(r.report.incidents.filter((i) => i.detector === "breaker").map((i) => i.action)).toEqual(["degrade", "hand-back"])
  }), 30_000)

  it.live("breaker.cooldownSteps = 0 runs every call", () => Effect.gen(function* () {
    const shell = failingShell()
    const h = yield* harness(calls(0, 6), { tools: [shell.tool], config: (c) => ({ ...c, breaker: { ...c.breaker, cooldownSteps: 0 } }) })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("circuit_open")
    expect(shell.ran.length).toBe(6)
    expect(text(h.server.requests[3]!.body)).not.toContain("Tool execution is paused")
  }), 30_000)
})

describe("loopguard run with breaker.fallback", () => {
  it.live("the config key reroutes to the fallback model on the same endpoint", () => Effect.gen(function* () {
    const script = Array.from({ length: 13 }, (_, i) => toolCallStream("bash", { command: `exit 2 # attempt ${i}` }, { id: `c${i}` }))
    const server = yield* scriptedServer(script)
    const env: Record<string, string | undefined> = { ...process.env }
    for (const k of Object.keys(env)) if (k.startsWith("LOOPGUARD_")) delete env[k]
    env["LOOPGUARD_BREAKER_FALLBACK"] = "fallback-model"
    const cwd = mkdtempSync(join(tmpdir(), "lg-breaker-"))
    const child = spawn(process.execPath, ["packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "primary-model", "--prompt", "Build it.", "--cwd", cwd], {
      cwd: resolve(import.meta.dir, ".."),
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    const code = yield* Effect.promise(() => new Promise<number | null>((done) => child.on("close", (c) => done(c))))
    expect(code).toBe(1)
    expect(stdout).toContain("── stopped: tools kept failing, so loopguard handed the work back (circuit_open)")
    const models = server.requests.map((q) => q.body.model)
    expect(models.slice(0, 8)).toEqual(Array(8).fill("primary-model"))
    expect(models.slice(8)).toEqual(Array(5).fill("fallback-model"))
  }), 30_000)
})
