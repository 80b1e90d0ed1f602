/**
 * The built-in hand-off skills over HTTP (docs/try-best.md). Fake `codex` and `claude` executables
 * that the test puts on PATH record their arguments and print an answer; the scripted model calls
 * the skill tool. Judged from the recorded arguments (the documented flags, sandbox-safe by
 * default), from the tools the server was offered, and from the result it got back.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { RunLoop } from "@loopguard/effect"
import { afterEach, describe, expect } from "bun:test"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { handoffSkillTools } from "../packages/cli/src/tools/skill-tools.js"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A bin directory holding fake harnesses: each writes its NUL-separated argv next to itself and answers. */
const fakeBin = (commands: ReadonlyArray<string>): string => {
  const bin = mkdtempSync(join(tmpdir(), "lg-skills-"))
  dirs.push(bin)
  for (const c of commands) {
    const file = join(bin, c)
    writeFileSync(file, `#!/bin/sh\nprintf '%s\\0' "$@" > "$(dirname "$0")/${c}.args"\necho "${c}: task done, tests pass"\n`)
    chmodSync(file, 0o755)
  }
  return bin
}
const argsOf = (bin: string, c: string): Array<string> => readFileSync(join(bin, `${c}.args`), "utf8").split("\0").slice(0, -1)

const toolsFor = (bin: string, mode: "sandboxed" | "isolated" = "sandboxed") =>
  handoffSkillTools(bin, { mode, timeoutMs: 20_000, maxOutputChars: 10_000, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: bin } })

const TASK = "Fix the failing parser test; it's in src/parse.ts. Run `bun test` before you stop."
const turn = Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "h", prompt: "Hand this to codex" }) })
const offered = (h: { server: { requests: Array<{ body: any }> } }) => (h.server.requests[0]!.body.tools ?? []).map((t: any) => t.function.name).sort()

describe("hand-off skills", () => {
  it.live("codex: offered when on PATH, run as `codex exec` sandboxed with the whole task as one argument", () => Effect.gen(function* () {
    const bin = fakeBin(["codex"])
    const h = yield* harness([toolCallStream("handoff_codex", { task: TASK }), textStream("Codex fixed it; the tests pass.")], { tools: toolsFor(bin) })
    const result = yield* h.provide(turn)
    expect(result.report.reason).toBe("final")
    expect(offered(h)).toEqual(["handoff_codex"])
    expect(argsOf(bin, "codex")).toEqual(["exec", "--sandbox", "workspace-write", "--ask-for-approval", "never", TASK])
    const toolMsg = h.server.requests[1]!.body.messages.find((m: any) => m.role === "tool")
    expect(toolMsg.content).toContain("codex: task done, tests pass")
  }), 30_000)

  it.live("claude-code: print mode with accepted edits; both harnesses offered when both resolve", () => Effect.gen(function* () {
    const bin = fakeBin(["codex", "claude"])
    const h = yield* harness([toolCallStream("handoff_claude_code", { task: TASK }), textStream("Claude Code fixed it.")], { tools: toolsFor(bin) })
    yield* h.provide(turn)
    expect(offered(h)).toEqual(["handoff_claude_code", "handoff_codex"])
    expect(argsOf(bin, "claude")).toEqual(["-p", TASK, "--permission-mode", "acceptEdits"])
  }), 30_000)

  it.live("isolated mode uses the unguarded flags; with neither command on PATH no skill is offered", () => Effect.gen(function* () {
    const bin = fakeBin(["codex"])
    const h = yield* harness([toolCallStream("handoff_codex", { task: "x" }), textStream("ok")], { tools: toolsFor(bin, "isolated") })
    yield* h.provide(turn)
    expect(argsOf(bin, "codex")).toEqual(["exec", "--yolo", "x"])
    expect(toolsFor(fakeBin([]))).toEqual([])
  }), 30_000)

  it.live("a secret of this process in the task never reaches the harness", () => Effect.gen(function* () {
    const bin = fakeBin(["codex"])
    const secret = "sk-live-9f8e7d6c5b4a3f2e1d0c9b8a"
    const tools = handoffSkillTools(bin, { mode: "sandboxed", timeoutMs: 20_000, maxOutputChars: 10_000, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: bin, OPENAI_API_KEY: secret }, secretEnvNames: ["OPENAI_API_KEY"] })
    const h = yield* harness([toolCallStream("handoff_codex", { task: `use key ${secret} to call the API` }), textStream("ok")], { tools })
    yield* h.provide(turn)
    const task = argsOf(bin, "codex").at(-1)!
    expect(task).not.toContain(secret)
    expect(task).toContain("use key")
  }), 30_000)
})
