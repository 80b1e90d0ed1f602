/**
 * Real agent CLIs from npm (pinned), each pointed at `loopguard proxy` in front of the scripted
 * server (Chat Completions, Responses, Messages or the Gemini API), on the three faults an agent cannot get out of alone: a reply that repeats one paragraph
 * hundreds of times, a model that asks for the same shell call every step, and (as the control)
 * a healthy task that must come out the same through the proxy as direct; and the healthy task with
 * the call written as text, which runs only through the proxy with `proxy.textToolCalls` on. Judged
 * from the server's request log, the marker file in the agent's workspace and how the agent exited;
 * the repeated call also from the agent's own log of the run (pi, OpenCode, Kilo, Claude Code, Codex CLI, Gemini CLI,
 * Qwen Code), read as `loopguard audit` reads it.
 *
 * Each run is bounded and its process group is killed whatever happens. An agent that cannot be
 * installed is skipped by name with npm's reason.
 */
import type { Script } from "@loopguard/ai-sdk/testing"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { readTraceText } from "@loopguard/core/trace"
import { isSqliteFile, openCodeDbExport, openCodeDbSessions } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { CUT_MARK, STOP_MARK } from "@loopguard/proxy"
import { afterAll, describe, expect, test } from "bun:test"
import { AGENTS, type AgentSpec } from "./agents/agents.js"
import {
  HEALTHY_ANSWER,
  healthyTaskScript,
  LOOP_PARAGRAPH,
  paragraphLoopScript,
  repeatedShellScript,
  textCallTaskScript
} from "./agents/agent-scripts.js"
import { installFromNpm, installKey } from "./agents/install.js"
import { killAllGroups, leftoversUnder } from "./agents/processes.js"
import { agentSteps, cleanCase, markerLines, normalisedBody, runCase, type CaseResult } from "./agents/run-case.js"

/** One agent run: generous for a loaded 2-core machine (a healthy run takes 3-15 s unloaded). */
const RUN_DEADLINE_MS = 150_000
/** One test: up to two runs plus proxy and server start-up. */
const CASE_TIMEOUT_MS = 2 * RUN_DEADLINE_MS + 120_000
const LOOP_TIMES = 400
/** The paragraph's first words: counted in what the agent printed. */
const LOOP_PROBE = LOOP_PARAGRAPH.slice(0, 60)
const MAX_EXECUTIONS = 8
/** The control without the proxy is stopped once the call ran this often: the agent did not stop itself. */
const CONTROL_EXECUTIONS = 12

afterAll(killAllGroups)

const occurrences = (text: string, probe: string): number => text.split(probe).length - 1
/** What the agent printed: some print the transcript on stderr and the answer on stdout. */
const printed = (r: CaseResult): string => r.outcome.stdout + r.outcome.stderr

/** Everything a failed expectation should show about a run. */
const describeRun = (r: CaseResult): string =>
  `exit=${r.outcome.exitCode} signal=${r.outcome.signal} killed=${r.outcome.killed} ${r.outcome.elapsedMs}ms ` +
  `requests=${r.requests.length} marker=${JSON.stringify(r.marker.slice(0, 200))}\n` +
  `stdout: ${r.outcome.stdout.slice(-1500)}\nstderr: ${r.outcome.stderr.slice(-1500)}\nproxy: ${r.proxyLog.slice(-1500)}`

const expectEndedOnItsOwn = (r: CaseResult): void => {
  expect({ killed: r.outcome.killed, exitCode: r.outcome.exitCode, run: r.outcome.killed || r.outcome.exitCode !== 0 ? describeRun(r) : "" })
    .toEqual({ killed: false, exitCode: 0, run: "" })
}

/** The files under `dir` (none when it is absent), whole paths. */
const filesUnder = (dir: string): Array<string> =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)])) : []

/** A log's text; a database of sessions (OpenCode's, Kilo's) as its one session's export document, as `loopguard audit` reads it. */
const ownLogText = (file: string): string => {
  if (!isSqliteFile(file)) return readFileSync(file, "utf8")
  const sessions = Effect.runSync(openCodeDbSessions(file))
  expect({ file, sessions: sessions.length }).toEqual({ file, sessions: 1 })
  return Effect.runSync(openCodeDbExport(file, sessions[0]!.id))
}

/**
 * The agent's own log of a run of the repeated call, read as `loopguard audit` reads it: found in
 * its format, with a step per run of the call (the last ones may be lost when the run was killed).
 */
const expectOwnLogRead = (agent: AgentSpec, r: CaseResult): void => {
  const own = agent.ownLog
  if (own === undefined) return
  const logs = filesUnder(join(r.home, own.under)).filter((f) => own.file.test(f))
  expect({ agent: agent.name, logs: logs.length }).toEqual({ agent: agent.name, logs: 1 })
  const read = readTraceText(ownLogText(logs[0]!), logs[0]!)
  const calls = read.lines.flatMap((l) => (l.type === "assistant" ? l.toolCalls : [])).filter((c) => JSON.stringify(c.input).includes("marker.txt"))
  const runs = markerLines(r.marker)
  expect({ agent: agent.name, format: read.format, calls: calls.length >= Math.min(runs - 2, 3) && calls.length <= runs + 1 })
    .toEqual({ agent: agent.name, format: own.format, calls: true })
}

const agentCases = (agent: AgentSpec, installDir: string) => {
  /**
   * The task direct (the control), then through the proxy; `judge` reads both. Afterwards no
   * process of the agent is left, and the runs' folders are removed whatever happened.
   */
  const directThenProxied = async (
    task: { readonly script: Script; readonly prompt: string; readonly directStopAtMarkerLines?: number; readonly proxyEnv?: Readonly<Record<string, string>> },
    judge: (direct: CaseResult, proxied: CaseResult) => void
  ): Promise<void> => {
    const runs: Array<CaseResult> = []
    const run = async (viaProxy: boolean, stopAtMarkerLines: number | undefined) => {
      const result = await runCase({
        agent,
        installDir,
        script: task.script,
        prompt: task.prompt,
        viaProxy,
        deadlineMs: RUN_DEADLINE_MS,
        ...(stopAtMarkerLines !== undefined ? { stopAtMarkerLines } : {}),
        ...(task.proxyEnv !== undefined ? { proxyEnv: task.proxyEnv } : {})
      })
      runs.push(result)
      return result
    }
    try {
      const direct = await run(false, task.directStopAtMarkerLines)
      const proxied = await run(true, undefined)
      judge(direct, proxied)
      expect(await leftoversUnder(runs.map((r) => join(r.workspace, "..")))).toEqual([])
    } finally {
      runs.forEach(cleanCase)
    }
  }

  test(`${agent.name}: (a) a paragraph repeated ${LOOP_TIMES} times is cut by the proxy and the agent ends its turn`, async () => {
    await directThenProxied({ script: paragraphLoopScript(LOOP_TIMES), prompt: "Check the configuration." }, (direct, proxied) => {
      expectEndedOnItsOwn(direct)
      if (agent.ownLoopCut === true) {
        // Control: the agent's own detector closed the runaway reply early, with no notice of why.
        expect(agentSteps(direct.requests)[0]?.outcome).toBe("client-closed")
        expect(occurrences(printed(direct), LOOP_PROBE)).toBeLessThan(LOOP_TIMES / 4)
        expect(printed(direct)).not.toContain(CUT_MARK)
      } else {
        // Control: without the proxy the agent takes the whole runaway reply.
        expect(agentSteps(direct.requests)[0]?.outcome).toBe("completed")
        expect(occurrences(printed(direct), LOOP_PROBE)).toBeGreaterThanOrEqual(LOOP_TIMES / 2)
      }

      expectEndedOnItsOwn(proxied)
      const steps = agentSteps(proxied.requests)
      expect(steps.length).toBe(1)
      // The proxy closed the upstream request part-way.
      expect(steps[0]?.outcome).toBe("client-closed")
      expect(occurrences(printed(proxied), LOOP_PROBE)).toBeLessThan(LOOP_TIMES / 4)
      // The agent showed the proxy's notice where the reply was cut.
      expect(printed(proxied)).toContain(CUT_MARK)
    })
  }, CASE_TIMEOUT_MS)

  const guard = agent.ownRepeatGuard
  const bTitle = guard === undefined
    ? `${agent.name}: (b) the same shell call asked for every step runs at most ${MAX_EXECUTIONS} times and the agent ends`
    : `${agent.name}: (b) the same shell call asked for every step: the agent's own guard halts it after ${guard.executions} runs, before the proxy's stop, direct and through the proxy alike`
  test(bTitle, async () => {
    const task = { script: repeatedShellScript, prompt: "Append x to marker.txt.", directStopAtMarkerLines: CONTROL_EXECUTIONS }
    await directThenProxied(task, (direct, proxied) => {
      // The loop is in the agent's own log too, which loopguard audit reads.
      expectOwnLogRead(agent, direct)
      if (guard === undefined) {
        // Control: without the proxy the agent keeps running the call until we kill it.
        expect({ executions: markerLines(direct.marker) >= CONTROL_EXECUTIONS, killed: direct.outcome.killed, run: describeRun(direct) })
          .toMatchObject({ executions: true, killed: true })
        expectEndedOnItsOwn(proxied)
        // It ended on the proxy's stop answer, which it showed.
        expect(printed(proxied)).toContain(STOP_MARK)
      } else {
        // The agent stops itself before the proxy's ladder reaches its stop; the proxy changes nothing.
        for (const r of [direct, proxied]) {
          expect({ executions: markerLines(r.marker), killed: r.outcome.killed, exitCode: r.outcome.exitCode, run: describeRun(r) })
            .toMatchObject({ executions: guard.executions, killed: false, exitCode: guard.exitCode })
        }
      }
      const executions = markerLines(proxied.marker)
      expect(executions).toBeGreaterThanOrEqual(1)
      expect(executions).toBeLessThanOrEqual(MAX_EXECUTIONS)
      if (guard === undefined) {
        // The stop answer came from the proxy: upstream saw no more steps than calls ran, plus the one refused.
        expect(agentSteps(proxied.requests).length).toBeLessThanOrEqual(executions + 1)
      } else {
        // The agent's guard ended it the same way through the proxy: as many steps went upstream as direct.
        expect(agentSteps(proxied.requests).length).toBe(agentSteps(direct.requests).length)
      }
    })
  }, CASE_TIMEOUT_MS)

  test(`${agent.name}: (c) a healthy task gives the same marker and the same upstream requests through the proxy as direct`, async () => {
    await directThenProxied({ script: healthyTaskScript, prompt: "Write healthy into marker.txt, then say you are done." }, (direct, proxied) => {
      for (const r of [direct, proxied]) {
        expectEndedOnItsOwn(r)
        expect(r.marker).toBe("healthy\n")
        expect(r.outcome.stdout).toContain(HEALTHY_ANSWER)
      }
      // Side requests (a title) run concurrently with the steps: compared as a sorted list.
      const bodies = (r: CaseResult) => r.requests.map((q) => JSON.stringify(normalisedBody(q.body, r, agent.volatile))).sort()
      expect(bodies(proxied)).toEqual(bodies(direct))
      expect(agentSteps(direct.requests).length).toBe(2)
    })
  }, CASE_TIMEOUT_MS)

  test(`${agent.name}: (d) a shell call the model writes as text runs only through the proxy with proxy.textToolCalls on`, async () => {
    const task = { script: textCallTaskScript, prompt: "Write healthy into marker.txt, then say you are done.", proxyEnv: { LOOPGUARD_PROXY_TEXT_TOOL_CALLS: "true" } }
    await directThenProxied(task, (direct, proxied) => {
      // Control: direct, the call is text in the answer, and nothing runs.
      expectEndedOnItsOwn(direct)
      expect({ marker: direct.marker, steps: agentSteps(direct.requests).length }).toEqual({ marker: "", steps: 1 })
      // Through the proxy the agent gets a structured call, runs it, and answers after its result.
      expectEndedOnItsOwn(proxied)
      expect({ marker: proxied.marker, steps: agentSteps(proxied.requests).length, run: proxied.marker === "" ? describeRun(proxied) : "" }).toEqual({ marker: "healthy\n", steps: 2, run: "" })
      expect(proxied.outcome.stdout).toContain(HEALTHY_ANSWER)
    })
  }, CASE_TIMEOUT_MS)
}

/** npm's words for a pin that names no published version: the project's mistake, never a reason to skip. */
const BAD_PIN = /E404|ETARGET|No matching version/

for (const agent of AGENTS) {
  const installed = await installFromNpm(installKey(agent), agent.packages)
  describe(`real agent ${agent.name} behind loopguard proxy`, () => {
    if (installed.ok) agentCases(agent, installed.dir)
    else if (process.env["CI"] === "true" && BAD_PIN.test(installed.reason)) {
      test(`${agent.name}: its pinned packages install`, () => {
        throw new Error(installed.reason)
      })
    } else {
      // A visible skip, by name and reason: npm could not install the package here (no registry).
      console.warn(`agent ${agent.name} skipped: ${installed.reason}`)
      test.skip(`${agent.name}: skipped, cannot install (${installed.reason})`, () => {})
    }
  })
}
