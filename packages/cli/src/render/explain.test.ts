import { describe, expect, test } from "bun:test"
import { EXIT_REASONS, type ReminderKind } from "@loopguard/core/model"
import { EXIT_WORDS, exitWords, explainIncident, explainRetry, explainTerminal } from "./explain.js"

/** Machine names that must never reach a person without words around them. */
const JARGON = /\b(REMIND|class|exit:|text-repeat|think-only|doom-loop|bash_retry|streak-crop)\b/

describe("exitWords", () => {
  test("every exit reason has plain words, none of them the raw literal", () => {
    for (const reason of EXIT_REASONS) {
      const words = exitWords(reason)
      expect(EXIT_WORDS[reason], `no words for ${reason}`).toBeDefined()
      expect(words).not.toContain("_")
      expect(words.length).toBeGreaterThan(5)
    }
  })
})

describe("explainIncident", () => {
  test("the incidents the loop raises read as what happened, then what loopguard did", () => {
    const cases = [
      { detector: "text-repeat", action: "cut", detail: { period: 15 } },
      { detector: "final", action: "text-repeat-remind", detail: {} },
      { detector: "think-only", action: "think-only", detail: {} },
      { detector: "text-tool-call", action: "text-tool-call", detail: {} },
      { detector: "continue", action: "length-continue", detail: {} },
      { detector: "text-loop", action: "mild", detail: { count: 3 } },
      { detector: "repeated-action", action: "note", detail: { count: 3 } },
      { detector: "doom-loop", action: "fail-non-interactive", detail: {} },
      { detector: "rollback", action: "rollback", detail: { kind: "refusal" } },
      { detector: "budget", action: "stop", detail: { reason: "tokens" } },
      { detector: "goal-gate", action: "not-met", detail: { reason: "no fix" } },
      { detector: "filtered", action: "exit:content_filter", detail: {} },
      { detector: "bash-retry", action: "pause", detail: { kind: "bash_retry", detail: "bash_retry: `npm test` has failed 3 times" } },
      { detector: "time-limit", action: "stop", detail: {} },
      { detector: "compaction", action: "compacted", detail: { replaced: 3 } },
      { detector: "subagent", action: "final", detail: {} },
      { detector: "step-cap", action: "stop", detail: { used: "50 of 50 steps" } },
      { detector: "breaker", action: "model-switched", detail: { to: "gpt-4o-mini" } },
      { detector: "brand-new-detector", action: "whatever", detail: null }
    ]
    for (const c of cases) {
      const x = explainIncident(c)
      expect(x.text).toMatch(/[.)]$/)
      expect(x.text).not.toMatch(JARGON)
    }
  })
  test("a loop detector's incident says which rung it took (note, remind, stop); refused and text calls read as what loopguard did", () => {
    const at = (action: string) => explainIncident({ detector: "repeated-action", action, detail: { count: 5 } })
    expect(at("note").text).toBe("The same tool call was made 5 times in a row; loopguard gave the model a note about it.")
    expect(at("remind").text).toContain("reminded the model")
    expect([at("stop").tone, at("stop").text]).toEqual(["stop", "The same tool call was made 5 times in a row; loopguard stopped the run."])
    expect(explainIncident({ detector: "action-cycle", action: "stop", detail: { period: 3 } }).text).toBe("The model is cycling through the same 3 actions; loopguard stopped the run.")
    for (const [detector, action] of [["tool-arguments", "refused"], ["tools-paused", "refused"], ["text-tool-call", "executed"]] as const) {
      expect(explainIncident({ detector, action, detail: { tool: "bash" } }).text).not.toContain("took action")
    }
    // Every detector on the loop ladder reads as what it saw and the rung it took.
    for (const detector of ["repeated-observation", "repeated-failure", "varied-retry", "failure-streak", "replayed-sequence", "no-progress-spin"]) {
      const said = explainIncident({ detector, action: "remind", detail: { count: 6 } }).text
      expect([detector, said.includes("took action"), said.endsWith("loopguard reminded the model to try something else.")]).toEqual([detector, false, true])
    }
    expect(explainIncident({ detector: "repeated-observation", action: "note", detail: { count: 5 } }).text).toBe("The same answer came back 5 times; loopguard gave the model a note about it.")
    expect(exitWords("idle")).toBe("the agent kept repeating itself after a note and a reminder")
  })
  test("the tone says whether the run goes on, stopped, or waits for a choice", () => {
    expect(explainIncident({ detector: "text-repeat", action: "cut", detail: {} }).tone).toBe("note")
    expect(explainIncident({ detector: "doom-loop", action: "permission-denied", detail: {} }).tone).toBe("stop")
    expect(explainIncident({ detector: "edit-repeat", action: "pause", detail: {} }).tone).toBe("pause")
    expect(explainIncident({ detector: "final", action: "exit:max_steps", detail: {} }).text).toBe("The run ended: reached the step limit.")
  })
  test("a pause keeps the detector's own sentence, without its label", () => {
    const x = explainIncident({ detector: "bash-retry", action: "pause", detail: { detail: "bash_retry: `npm test` has failed 3 times (exit 1)" } })
    expect(x.text).toStartWith("`npm test` has failed 3 times (exit 1).")
  })
  test("a Try-Best note says what was seen and what follows: only a failing command pauses later", () => {
    const x = explainIncident({ detector: "bash-retry", action: "note", detail: { detail: "bash_retry: `make` has failed 3 times (exit 2)" } })
    expect(x).toEqual({ tone: "note", text: "`make` has failed 3 times (exit 2). loopguard told the model to change its approach; the turn is paused if the command fails again." })
    expect(explainIncident({ detector: "action-streak", action: "note", detail: {} }).text).toContain("it never pauses for this")
  })
  test("details of the wrong shape never throw", () => {
    for (const detail of [null, 3, "x", [], { count: "many", period: {} }]) {
      expect(() => explainIncident({ detector: "text-loop", action: "mild", detail })).not.toThrow()
      expect(() => explainIncident({ detector: "completion-check", action: "failed", detail })).not.toThrow()
    }
  })
  test("every reminder kind the loop can send has a sentence of its own or a readable fallback", () => {
    const kinds: ReadonlyArray<ReminderKind> = ["length-continue", "unfinished-stream", "think-only", "invalid", "text-tool-call", "dropped-tool-call", "structured-output", "text-repeat-remind", "text-repeat-replan", "soft-cap", "summary", "breaker-degrade"]
    for (const kind of kinds) expect(explainIncident({ detector: "x", action: kind, detail: {} }).text).not.toContain(`took action "${kind}"`)
    // A stream with no finish reason is not told as the length limit.
    expect(explainIncident({ detector: "continue", action: "unfinished-stream", detail: {} }).text).toBe("The reply ended without saying it was finished; loopguard asked the model to continue.")
    expect(explainIncident({ detector: "x", action: "brand-new", detail: {} }).text).toContain('took action "brand-new"')
  })
})

test("retries say what failed, how long loopguard waits and which attempt it is", () => {
  expect(explainRetry({ kind: "rate_limit", attempt: 2, maxRetries: 5, delayMs: 2000 })).toBe(
    "The provider is rate limiting; loopguard waits 2.0 s and tries again (attempt 2 of 5)."
  )
  expect(explainTerminal({ kind: "unknown", message: "bad key" })).toContain("retrying would not help: bad key")
  // A message of several lines stays on the banner's one line.
  expect(explainTerminal({ kind: "stream", message: "JSON parsing failed: Text: {not json.\n  Error message: SyntaxError", uiMessage: "The reply could not be read." })).toBe(
    "The reply could not be read. (JSON parsing failed: Text: {not json. Error message: SyntaxError)"
  )
  expect(explainRetry({ kind: "stream", attempt: 1, maxRetries: 4, delayMs: 200 })).toStartWith("The reply's stream broke off or could not be read; ")
})

test("a try-best banner counts steps from 1, as the status lines around it and `stopped at` do", () => {
  const detail = { kind: "bash_retry", step: 3, detail: "bash_retry: `npm test` has failed 4 times (exit 1). Noted at step 2; it failed again at step 3." }
  const x = explainIncident({ detector: "bash-retry", action: "pause", detail })
  expect(x.text).toContain("Noted at step 3; it failed again at step 4.")
})
