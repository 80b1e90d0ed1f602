/**
 * The loop ladder end to end: the real RunLoop over the real AI SDK provider against the scripted
 * HTTP server, with the real shell tool of `loopguard run` in a temporary directory. Executions
 * are counted from outside — the tool appends a line to a marker file (outside the working
 * directory, so the agent never sees it) before each command — and the reminders from the
 * request bodies the server received.
 */
import { repeatLoop, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { reminderText } from "@loopguard/core/classify"
import type { LoopguardConfig } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinTools } from "../packages/cli/src/tools.js"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
import { actions, turns } from "./loops-e2e/run.js"
import { userTexts } from "./loops-e2e/wire.js"

const NOTE = reminderText("repeated-action", "main")
const REMIND = reminderText("loop-remind", "main")

/** A working directory with a source file, and the real tools with a counting shell. */
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), "lg-loops-"))
  const dir = join(root, "work")
  const marker = join(root, "marker")
  mkdirSync(dir)
  writeFileSync(join(dir, "app.py"), "def main():\n    return 1\n")
  const tools = builtinTools(dir, 10_000).map((t) =>
    t.spec.name !== "bash" ? t : { ...t, run: (input: Record<string, unknown>, signal: AbortSignal) => (appendFileSync(marker, "ran\n"), t.run(input, signal)) }
  )
  return {
    tools,
    executions: () => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean).length : 0),
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }
}

/** The scripted model answers request i with `pick(i)`; past the loop it would answer. */
const modelOf = (pick: (i: number) => ScriptedResponse) => (_body: unknown, i: number) => pick(i)
const bash = (command: string, i: number) => toolCallStream("bash", { command }, { id: `call_${i}` })

/** One run in a fresh workspace; the server and the workspace are gone when it returns. */
const runLoop = (pick: (i: number) => ScriptedResponse, config: (c: LoopguardConfig) => LoopguardConfig = (c) => c) =>
  Effect.scoped(
    Effect.gen(function* () {
      const ws = yield* Effect.acquireRelease(Effect.sync(workspace), (ws) => Effect.sync(ws.cleanup))
      const h = yield* harness(modelOf(pick), { tools: ws.tools, config })
      const { results } = yield* h.provide(turns("Find where the app reads its settings."))
      return { r: results[0]!, server: h.server, executions: ws.executions() }
    })
  )

describe("repeated tool call over HTTP", () => {
  it.live("the same shell call on every step: note at 3, firmer reminder at 5, stopped at 8 executions with exit idle", () => Effect.gen(function* () {
    const { r, server, executions } = yield* runLoop((i) => bash("grep -rn settings . || true", i))
    expect(executions).toBeLessThanOrEqual(8)
    expect(executions).toBe(8)
    expect(server.requests).toHaveLength(8)
    expect(r.report.reason).toBe("idle")
    expect(r.report.error?.message).toContain("repeated-action")
    // The stop words name the evidence: the call, how often, the steps.
    expect(r.report.blockedAt).toContain("ran 8 times in a row (steps 0-7)")
    expect(r.report.blockedAt).toContain("grep -rn settings . || true")
    expect(actions(r, "repeated-action")).toEqual(["note", "remind", "stop"])
    // The note is ephemeral: the 4th request carries it (after 3 identical calls), it is not stored.
    expect(userTexts(server, 3).some((t) => t.includes(NOTE))).toBe(true)
    expect(userTexts(server, 2).some((t) => t.includes(NOTE))).toBe(false)
    // The firmer reminder is stored after the 5th call and stays in every later request.
    expect(userTexts(server, 5).filter((t) => t === REMIND)).toHaveLength(1)
    expect(userTexts(server, 7).filter((t) => t === REMIND)).toHaveLength(1)
    expect(userTexts(server, 4).filter((t) => t === REMIND)).toHaveLength(0)
    expect(r.incidents.every((i) => i.kind !== undefined)).toBe(true)
  }), 60_000)

  it.live("with try-best on, the top of the ladder pauses the turn instead", () => Effect.gen(function* () {
    const { r, executions } = yield* runLoop(
      (i) => bash("ls", i),
      (c) => ({ ...c, tryBest: { ...c.tryBest, enabled: true } })
    )
    expect(executions).toBe(8)
    expect(r.report.reason).toBe("try_best_paused")
    expect(actions(r, "repeated-action")).toEqual(["note", "remind", "pause"])
    expect(r.report.blockedAt).toContain("paused: `ls` ran 8 times in a row (steps 0-7)")
  }), 60_000)

  it.live("two identical calls are a legitimate retry: nothing is raised", () => Effect.gen(function* () {
    const { r, executions } = yield* runLoop((i) => (i < 2 ? bash("ls", i) : textStream("Settings are read in app.py.")))
    expect(executions).toBe(2)
    expect(r.report.reason).toBe("final")
    expect(r.incidents.filter((i) => i.kind === "loop")).toEqual([])
  }), 60_000)

  it.live("the counts are config knobs", () => Effect.gen(function* () {
    const { r, executions } = yield* runLoop(
      (i) => bash("ls", i),
      (c) => ({ ...c, repeatedAction: { ...c.repeatedAction, repeats: 2, remindAt: 3, stopAt: 4 } })
    )
    expect(executions).toBe(4)
    expect(r.report.reason).toBe("idle")
  }), 60_000)
})

describe("paging is not a dead loop", () => {
  it.live("the same scroll call whose result differs every time (16×) gets the note but is never stopped", () => Effect.gen(function* () {
    const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]
    let page = 0
    const scroll = {
      spec: { name: "scroll_down", description: "show the next part of the open file", inputSchema: { type: "object", properties: {} } },
      // Every page differs in its words (numbers would be masked away).
      run: async () => ({ state: "completed" as const, output: `def ${words[page % 12]}_${words[Math.floor(page++ / 12) % 12]}():\n    return None` })
    }
    const h = yield* harness(
      modelOf((i) => (i < 16 ? toolCallStream("scroll_down", {}, { id: `call_${i}` }) : textStream("The settings are read in hotel_golf."))),
      { tools: [scroll] }
    )
    const { results } = yield* h.provide(turns("Find where the settings are read."))
    const r = results[0]!
    expect(page).toBe(16)
    expect(r.report.reason).toBe("final")
    expect(actions(r, "repeated-action")).toEqual(["note"])
    // Reading page after page is not a spin either.
    expect(actions(r, "no-progress-spin")).toEqual([])
  }), 60_000)
})

describe("action cycle over HTTP", () => {
  it.live("A B A B … escalates the same way and stops", () => Effect.gen(function* () {
    const cycle = ["cat app.py", "ls -la"]
    const { r, executions } = yield* runLoop((i) => bash(cycle[i % 2]!, i))
    expect(r.report.reason).toBe("idle")
    expect(actions(r, "action-cycle")).toEqual(["note", "remind", "stop"])
    // Noted after 2 + 4 steps, stopped 5 steps later.
    expect(executions).toBe(11)
  }), 60_000)
})

describe("repeated observation over HTTP", () => {
  it.live("different commands, the same answer each time: noted at the 5th, stopped 5 steps later", () => Effect.gen(function* () {
    // Four command lines in turn, so no one of them is retried four times with new arguments (varied retry).
    const probes = [`python3 -c "print('service: not ready')"`, `perl -e "print qq(service: not ready\\n)"`, `python3 -S -c "print('service: not ready')"`, `perl -w -e "print qq(service: not ready\\n)"`]
    const { r, server, executions } = yield* runLoop((i) => bash(probes[i % probes.length]!, i))
    expect(actions(r, "repeated-observation")).toEqual(["note", "remind", "stop"])
    expect(r.report.reason).toBe("idle")
    expect(executions).toBe(10)
    expect(server.requests).toHaveLength(10)
  }), 60_000)

  it.live("different searches, each answering no matches, are exploration: no note, no stop, the run answers", () => Effect.gen(function* () {
    // Before, this very run was stopped as a repeated observation (issue: exploration is no spin).
    const { r, executions } = yield* runLoop((i) =>
      i < 12 ? bash(`grep -rn "setting_${i}" . || echo "No matches found for setting_${i}"`, i) : textStream("The app reads no settings file.")
    )
    expect(executions).toBe(12)
    expect(r.report.reason).toBe("final")
    expect(r.incidents.filter((x) => x.kind === "loop")).toEqual([])
  }), 60_000)
})

describe("repeated failure over HTTP", () => {
  it.live("edit, run the same failing check, edit, run it again …: noted at the 3rd identical failure, stopped at the 8th", () => Effect.gen(function* () {
    // Every edit really changes app.py; the check fails the same way each time.
    const check = "python3 -c 'import sys; sys.exit(\"check failed: main() returned the wrong value\")'"
    const { r, executions } = yield* runLoop((i) => (i % 2 === 0 ? bash(`echo '# attempt ${"abcdefghijklmnop"[i]}' >> app.py`, i) : bash(check, i)))
    expect(actions(r, "repeated-failure")).toEqual(["note", "remind", "stop"])
    expect(r.report.reason).toBe("idle")
    // 8 failing runs, each after an edit: 16 executions.
    expect(executions).toBe(16)
    const stop = r.incidents.find((i) => i.detector === "repeated-failure" && i.action === "stop")
    expect(stop?.detail).toMatchObject({ editedBetween: true })
  }), 60_000)
})

describe("no-progress spin over HTTP", () => {
  it.live("ever-different orderings of the same few probes, nothing written: a spin", () => Effect.gen(function* () {
    const probes = ["cat app.py", "ls", "pwd", "python3 --version || true"]
    // Every command differs from its neighbour, and no 4+ steps replay a cycle.
    const order = [0, 1, 2, 3, 1, 0, 3, 2, 0, 2, 1, 3, 2, 0, 1, 3, 0, 1, 2, 3, 3, 1, 0, 2]
    const { r, executions } = yield* runLoop((i) => bash(`${probes[order[i % order.length]!]}`, i))
    expect(actions(r, "no-progress-spin")[0]).toBe("note")
    expect(r.report.reason).toBe("idle")
    expect(executions).toBeLessThanOrEqual(16)
  }), 60_000)

  it.live("a steady stream of edits is progress: no spin", () => Effect.gen(function* () {
    const { r } = yield* runLoop((i) => (i < 12 ? bash(`echo "v = ${i}" > settings_${i}.py`, i) : textStream("Done.")))
    expect(r.incidents.filter((i) => i.detector === "no-progress-spin")).toEqual([])
    expect(r.report.reason).toBe("final")
  }), 60_000)
})

describe("replayed sequence over HTTP", () => {
  it.live("a 7-step walk through the files, replayed after a detour", () => Effect.gen(function* () {
    const walk = ["cat app.py", "ls", "pwd", "head -1 app.py", "wc -l app.py", "tail -1 app.py", "file app.py || true"]
    const detour = ["uname", "date +%Y"]
    const script = [...walk, ...detour, ...walk, ...walk]
    const { r } = yield* runLoop((i) => (i < script.length ? bash(`${script[i]}`, i) : textStream("Done.")))
    const replay = r.incidents.find((i) => i.detector === "replayed-sequence")
    expect(replay?.action).toBe("note")
    // Noted once the replay reaches 6 steps: step 9 + 6 − 1.
    expect(replay?.step).toBe(14)
  }), 60_000)
})

describe("runaway generation over HTTP", () => {
  it.live("a 43-word paragraph ×400 is not accepted as the answer: cut by the long-period rule, the model is reminded", () => Effect.gen(function* () {
    const paragraph = Array.from({ length: 43 }, (_, i) => ["check", "the", "parser", "output", "again", "before", "moving", "to", "tests", "and", "docs"][i % 11]).join(" ") + "."
    const h = yield* harness([repeatLoop(paragraph, 400, { chunkSize: 64, chunkDelayMs: 1 }), textStream("The parser is fixed.")])
    const { results } = yield* h.provide(turns("Fix the parser."))
    const r = results[0]!
    const cut = r.incidents.find((i) => i.detector === "text-repeat" && i.action === "cut")
    expect(cut?.detail).toMatchObject({ rule: "long" })
    expect(cut?.kind).toBe("loop")
    expect(h.server.requests[0]!.closedEarly).toBe(true)
    // The cut reply is answered with a reminder, and the next reply is the final answer.
    expect(h.server.requests).toHaveLength(2)
    expect(r.report.reason).toBe("final")
    expect(r.report.finalText).toBe("The parser is fixed.")
  }), 60_000)
})
