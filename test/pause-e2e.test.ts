/**
 * The pause and hand-off flow of `loopguard run` (docs/try-best.md), end to end: the scripted HTTP server,
 * the real AI SDK provider, the real services and the real shell tool. The model calls `bash`
 * with a command that keeps failing: at the third failure try-best notes it and the error-storm
 * breaker holds tools back for two steps; the fourth failure that runs (the sixth request) went on
 * after the note and is paused; the pause policy decides what follows.
 */
import { describe, expect, test } from "bun:test"
import { scratch } from "./cli-fixture.js"
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG, makeMemoryStore, type LoopguardConfig, type SessionStoreShape } from "@loopguard/effect"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { join, resolve } from "node:path"
import { commandsInstalled, runWithPausePolicy, type PauseRunOptions } from "../packages/cli/src/pause/index.js"
import { builtinTools } from "../packages/cli/src/tools.js"

const NOTICE = "Try-best loop detected; this turn was paused."
const SECRET = "sk-test-4f9Qz7Lm2Xv8Rt1Kp6Wn3Bc5"
const PASSWORD = "correct-horse-battery-staple-42"

const { serve, workdir } = scratch("lg-pause-")

const failing = (command: string) => [1, 2, 3, 4, 5, 6].map((i) => toolCallStream("bash", { command }, { id: `fail${i}`, text: "Running it again." }))

const tryBestOn = (policy: LoopguardConfig["tryBest"]["onPause"], patch: (c: LoopguardConfig) => LoopguardConfig = (c) => c): LoopguardConfig => {
  const c = structuredClone(DEFAULT_CONFIG)
  return patch({ ...c, tryBest: { ...c.tryBest, enabled: true, onPause: policy } })
}

interface Run {
  readonly outcome: Awaited<ReturnType<typeof runOnce>>
  readonly out: Array<string>
  readonly err: Array<string>
  readonly store: SessionStoreShape
}

const runOnce = (options: PauseRunOptions) => Effect.runPromise(runWithPausePolicy(options))

const run = async (
  server: ScriptedServer,
  config: LoopguardConfig,
  extra: Partial<PauseRunOptions> & { readonly modelId?: string } = {}
): Promise<Run> => {
  const out: Array<string> = []
  const err: Array<string> = []
  const store = makeMemoryStore()
  const modelId = extra.modelId ?? "gpt-4o"
  const outcome = await runOnce({
    config,
    llm: layerOpenAICompatible({ baseURL: server.baseURL, modelId, providerId: "scripted" }),
    modelId,
    tools: builtinTools(workdir(), 10_000),
    prompt: "Make the build pass.",
    hasCommand: commandsInstalled(),
    env: {},
    isTTY: false,
    store,
    write: (l) => out.push(l),
    warn: (l) => err.push(l),
    ...extra
  })
  return { outcome, out, err, store }
}

type WireMessage = { role: string; content?: unknown }
const contentText = (m: WireMessage): string =>
  typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? "").join("") : ""
const lastUserText = (body: { messages: ReadonlyArray<WireMessage> }): string =>
  contentText([...body.messages].reverse().find((m) => m.role === "user")!)

describe("a pause with onPause stop", () => {
  test("the same failing command: noted at the 3rd failure, paused at the next one that runs; the reply stored carries the notice; exit status 1", async () => {
    const server = await serve(failing("exit 1"))
    const { outcome, out, store } = await run(server, tryBestOn("stop"))

    expect(server.requests).toHaveLength(6)
    expect(outcome.exitCode).toBe(1)
    expect(outcome.error).toBeNull()
    expect(outcome.results).toHaveLength(1)
    const [result] = outcome.results
    expect(result!.report.reason).toBe("try_best_paused")
    expect(result!.report.status).toBe("paused")
    const pause = result!.incidents.find((i) => i.action === "pause")
    expect(pause?.detector).toBe("bash-retry")

    const messages = await Effect.runPromise(store.messages("run"))
    const replies = messages.filter((m) => m.role === "assistant")
    expect(replies).toHaveLength(6)
    const last = replies[replies.length - 1]!
    const texts = last.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
    expect(texts.some((t) => t.startsWith(NOTICE) && t.includes("exit 1"))).toBe(true)

    expect(outcome.pauses.map((p) => p.choice)).toEqual(["stop"])
    expect(outcome.pauses[0]!.incident.kind).toBe("bash_retry")
    const printed = out.join("\n")
    expect(printed).toContain("try-best paused the run")
    expect(printed).toContain("1. stop")
    expect(printed).toContain("2. continue")
  })

  test("neither the goal gate nor a failing completion check resumes a paused run", async () => {
    const server = await serve(failing("exit 1"))
    const config = tryBestOn("stop", (c) => ({
      ...c,
      goalGate: { ...c.goalGate, enabled: true },
      completionCheck: { ...c.completionCheck, command: "exit 3" }
    }))
    const { outcome } = await run(server, config)

    // A gate verdict or check feedback would have cost a 4th request.
    expect(server.requests).toHaveLength(6)
    expect(outcome.results.map((r) => r.report.reason)).toEqual(["try_best_paused"])
    expect(outcome.exitCode).toBe(1)
  })
})

describe("continue", () => {
  test("the next request carries the change-of-strategy instruction and the run ends final", async () => {
    const server = await serve([...failing("exit 1"), textStream("Stepped back; the build passes now.")])
    const { outcome } = await run(server, tryBestOn("continue"))

    expect(server.requests).toHaveLength(7)
    const resumed = lastUserText(server.requests[6]!.body)
    expect(resumed).toContain("Drop the approach you were taking")
    expect(resumed).toContain(outcome.pauses[0]!.incident.detail)
    expect(outcome.pauses[0]!.incident.detail).toContain("exit 1")
    // The original turn is still there: same session, not a fresh one.
    expect(contentText(server.requests[6]!.body.messages.find((m: WireMessage) => m.role === "user"))).toBe("Make the build pass.")
    // The pause notice stored on the paused reply reaches the model with that reply.
    const replies = server.requests[6]!.body.messages.filter((m: WireMessage) => m.role === "assistant").map(contentText)
    expect(replies.some((t: string) => t.includes(NOTICE))).toBe(true)
    expect(outcome.results.map((r) => r.report.reason)).toEqual(["try_best_paused", "final"])
    expect(outcome.exitCode).toBe(0)
  })

  test("at most 2 resumes per run: the third pause stops", async () => {
    const server = await serve(() => toolCallStream("bash", { command: "exit 1" }))
    const { outcome, err } = await run(server, tryBestOn("continue"))

    expect(outcome.results.map((r) => r.report.reason)).toEqual(["try_best_paused", "try_best_paused", "try_best_paused"])
    expect(outcome.pauses.map((p) => p.resumed)).toEqual([true, true, false])
    // bash-retry notes the 3rd failure and pauses at the next one that runs (the 6th call: the
    // breaker held the 4th and 5th back); the 8th identical call in a row is the top of the
    // repeated-action ladder, which pauses (try-best is on), and the 9th is still at its top.
    expect(outcome.pauses.map((p) => [p.incident.detector, p.incident.step])).toEqual([["bash-retry", 5], ["repeated-action", 7], ["repeated-action", 8]])
    expect(server.requests).toHaveLength(9)
    expect(err.join("\n")).toContain("resume limit reached")
    expect(outcome.exitCode).toBe(1)
  })
})

describe("hand-off", () => {
  test("handoff:claude for gpt-4o with claude installed: the next request carries the hand-off brief, without secrets", async () => {
    const server = await serve([...failing(`deploy --token ${SECRET} || exit 1`), textStream("Claude Code finished; the checks pass.")])
    // The RunLoop runs the completion check before accepting `final`, so it must pass here.
    const config = tryBestOn("handoff:claude", (c) => ({ ...c, completionCheck: { ...c.completionCheck, command: "test -d ." } }))
    const { outcome } = await run(server, config, {
      prompt: `Deploy the site. The password is ${PASSWORD} and the token is ${SECRET}.`,
      hasCommand: commandsInstalled("claude"),
      env: { SECRET_TOKEN: SECRET, DEPLOY_PASSWORD: PASSWORD, PATH: "/usr/bin" }
    })

    expect(server.requests).toHaveLength(7)
    const brief = lastUserText(server.requests[6]!.body)
    expect(brief).toContain("Claude Code CLI")
    expect(brief).toContain("claude -p")
    // It names the skill and the tool that runs it.
    expect(brief).toContain("`handoff_claude_code` tool")
    expect(brief).toContain("built-in `claude-code` skill")
    expect(brief).toContain("Deploy the site.")
    expect(brief).toContain("Run the completion check `test -d .`")
    expect(brief).toContain("Re-run the failing command")
    expect(brief).toContain("has failed 4 times")
    expect(brief).not.toContain(SECRET)
    expect(brief).not.toContain(PASSWORD)
    expect(brief).toContain("[REDACTED]")
    expect(outcome.pauses[0]!.offered).toEqual(["stop", "continue", "handoff:claude"])
    expect(outcome.results.map((r) => r.report.reason)).toEqual(["try_best_paused", "final"])
    expect(outcome.exitCode).toBe(0)
  })

  test("handoff:codex for a gpt model is refused before any request, naming the same family; exit 2", async () => {
    const server = await serve(failing("exit 1"))
    const { outcome } = await run(server, tryBestOn("handoff:codex"), { hasCommand: commandsInstalled("codex", "claude") })

    expect(outcome.exitCode).toBe(2)
    expect(outcome.error).toContain("Codex CLI is not offered for model gpt-4o")
    expect(outcome.error).toContain("same family (OpenAI)")
    expect(server.requests).toHaveLength(0)
  })

  test("a target whose command is not on PATH is not offered, and choosing it is refused", async () => {
    const server = await serve(failing("exit 1"))
    const { outcome, out } = await run(server, tryBestOn("stop"), { modelId: "deepseek-chat", hasCommand: commandsInstalled("codex") })

    expect(outcome.pauses[0]!.offered).toEqual(["stop", "continue", "handoff:codex"])
    expect(out.join("\n")).toMatch(/handoff:claude\s+Claude Code CLI is not offered: its command `claude` was not found on PATH/)

    const again = await serve(failing("exit 1"))
    const refused = await run(again, tryBestOn("handoff:claude"), { modelId: "deepseek-chat", hasCommand: commandsInstalled("codex") })
    expect(refused.outcome.exitCode).toBe(2)
    expect(refused.outcome.error).toContain("`claude` was not found on PATH")
  })
})

describe("ask", () => {
  test("without a terminal it stops at the pause and says why", async () => {
    const server = await serve(failing("exit 1"))
    let asked = 0
    const { outcome, err } = await run(server, tryBestOn("ask"), { isTTY: false, ask: async () => (asked++, "continue") })

    expect(asked).toBe(0)
    expect(err.join("\n")).toContain("needs a terminal")
    expect(outcome.pauses.map((p) => p.choice)).toEqual(["stop"])
    expect(outcome.exitCode).toBe(1)
    expect(server.requests).toHaveLength(6)
  })

  test("on a terminal the answer decides: a refused target is explained and asked again", async () => {
    const server = await serve([...failing("exit 1"), textStream("Done with a new approach.")])
    const answers = ["handoff:codex", "2"]
    const { outcome, err } = await run(server, tryBestOn("ask"), {
      isTTY: true,
      hasCommand: commandsInstalled("codex", "claude"),
      ask: async () => answers.shift() ?? null
    })

    expect(answers).toEqual([])
    expect(err.join("\n")).toContain("same family (OpenAI)")
    expect(outcome.pauses.map((p) => p.choice)).toEqual(["continue"])
    expect(lastUserText(server.requests[6]!.body)).toContain("Drop the approach you were taking")
    expect(outcome.exitCode).toBe(0)
  })
})

describe("the loopguard run command", () => {
  test("spawned with --on-pause continue: pauses, resumes with the instruction, exits 0", async () => {
    const server = await serve([...failing("exit 1"), textStream("Changed strategy; done.")])
    const cwd = workdir()
    const root = resolve(import.meta.dir, "..")
    const env = { ...process.env }
    delete env["LOOPGUARD_CONFIG"]
    for (const k of Object.keys(env)) if (k.startsWith("LOOPGUARD_")) delete env[k]
    const child = spawn(
      process.execPath,
      ["run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "gpt-4o", "--prompt", "Make the build pass.", "--cwd", cwd, "--on-pause", "continue"],
      { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)))

    expect(stderr).toContain("try-best enabled by --on-pause continue")
    expect(stdout).toContain("try-best paused the run")
    expect(stdout).toContain("→ continue (resume 1 of 2)")
    expect(server.requests).toHaveLength(7)
    expect(lastUserText(server.requests[6]!.body)).toContain("Drop the approach you were taking")
    expect(code).toBe(0)
  }, 30_000)
})
