import { describe, expect, test } from "bun:test"
import type { RunResult } from "@loopguard/effect"
import { buildReport } from "@loopguard/core/report"
import { pausedIncidentOf, type PausedIncident } from "./paused-incident.js"
import { continueTurn, handoffTurn, validationOf, workspaceSummary } from "./resume-turn.js"

const pausedResult = (detail: unknown, completed: ReadonlyArray<string> = []): RunResult =>
  ({
    report: buildReport({ reason: "try_best_paused", stepsUsed: 3, completed }),
    incidents: [
      { step: 0, detector: "repeated-action", action: "note", detail: {} },
      { step: 2, detector: "bash-retry", action: "pause", detail }
    ],
    exit: null
  }) as unknown as RunResult

const bashRetry = { kind: "bash_retry", step: 2, detail: "bash_retry: `npm test` has failed 3 times (exit 1).", evidence: { command: "npm test", count: 3 } }

describe("pausedIncidentOf", () => {
  test("reads the pause incident's object", () => {
    const i = pausedIncidentOf(pausedResult(bashRetry))
    expect(i).toEqual({ kind: "bash_retry", detector: "bash-retry", step: 2, detail: bashRetry.detail, evidence: bashRetry.evidence })
  })

  test("a result that did not pause has none", () => {
    const r = { ...pausedResult(bashRetry), report: buildReport({ reason: "final", stepsUsed: 1 }) }
    expect(pausedIncidentOf(r)).toBeNull()
  })

  test("a malformed detail still yields a usable incident", () => {
    const i = pausedIncidentOf(pausedResult("weird"))!
    expect(i.kind).toBe("bash_retry")
    expect(i.detail).toContain("bash-retry")
    expect(i.evidence).toEqual({})
    expect(i.step).toBe(2)
  })
})

describe("resume turns", () => {
  const incident = pausedIncidentOf(pausedResult(bashRetry))!

  test("continue carries the incident and the change-of-strategy instruction", () => {
    const t = continueTurn(incident)
    expect(t).toContain(bashRetry.detail)
    expect(t).toContain("substantially different strategy")
  })

  test("validation: the completion check first, then the failing command", () => {
    expect(validationOf(incident, "bun run check")).toEqual(["Run the completion check `bun run check`; it must pass.", "Re-run the failing command `npm test`; it must succeed."])
    expect(validationOf(incident, null)).toEqual(["Re-run the failing command `npm test`; it must succeed."])
    const noCommand: PausedIncident = { ...incident, evidence: {} }
    expect(validationOf(noCommand, "  ")[0]).toContain("Re-run the failing command (")
  })

  test("the workspace summary lists completed calls over every run, newest kept", () => {
    const runs = [pausedResult(bashRetry, ["read_file a"]), pausedResult(bashRetry, ["list_dir .", "bash ls"])]
    const s = workspaceSummary(runs, "/w", { maxCompleted: 2 })
    expect(s).toContain("Working directory: /w")
    expect(s).toContain("6 steps over 2 runs")
    expect(s).toContain("- list_dir .\n- bash ls")
    expect(s).not.toContain("read_file a")
    expect(s).toContain("1 older ones left out")
    expect(workspaceSummary([pausedResult(bashRetry)])).toContain("No tool call has completed")
  })

  test("the hand-off brief names the harness and holds no secret from the environment", () => {
    const secret = "plain-words-but-secret-value"
    const text = handoffTurn({
      target: "codex",
      goal: `Ship it with key ${secret}`,
      incident,
      results: [pausedResult(bashRetry, [`bash {"command":"login ${secret}"}`])],
      completionCheck: null,
      env: { MY_KEY: secret }
    })
    expect(text).toContain("Codex CLI")
    expect(text).toContain("Ship it with key [REDACTED]")
    expect(text).toContain("`npm test`")
    expect(text).not.toContain(secret)
  })
})
