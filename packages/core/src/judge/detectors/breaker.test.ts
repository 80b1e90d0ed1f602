import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "../../model/index.js"
import { DEFAULT_JUDGE_CONFIG } from "../judge-config.js"
import { BreakerDetector } from "./breaker.js"
import type { StepVerdict } from "./step-detector.js"
import { bashReply, factsOf } from "./test-facts.js"

const failing = (i: number, command = "docker compose up -d"): AssistantMessage => bashReply(i, command, { state: "error", error: `boom ${i}` })
const run = (d: BreakerDetector, n: number, paused = false, command?: (i: number) => string): Array<StepVerdict> =>
  Array.from({ length: n }, (_, i) => d.push(factsOf([], i + 1, { reply: failing(i, command?.(i)), ctx: paused ? { toolsPaused: true } : {} })))

describe("BreakerDetector", () => {
  test("a failure storm degrades with a reminder, then hands back only if nothing ended the run first", () => {
    const verdicts = run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", false, 3), 12)
    const degrade = verdicts.find((v) => v.breakerTrip !== undefined)
    expect(degrade?.breakerTrip).toBe("degrade")
    expect(degrade?.reminders?.map((r) => r.kind)).toEqual(["breaker-degrade"])
    const handBack = verdicts.find((v) => v.exitIfNone !== undefined)
    expect(handBack?.exitIfNone?.reason).toBe("circuit_open")
    expect(verdicts.some((v) => v.exit !== undefined)).toBe(false)
  })

  test("with a fallback model the ladder reroutes", () => {
    const verdicts = run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", true, 3), 12)
    expect(verdicts.map((v) => v.breakerTrip).filter((t) => t !== undefined)).toContain("reroute")
  })

  test("failing test runs and lookups are answers, not a storm: triage file by file, probing the environment", () => {
    const files = ["auth", "billing", "cart", "checkout", "db", "email", "export", "import", "search", "session", "user", "zip"]
    const quiet = (command: (i: number) => string) => run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", false, 3), 12, false, command).every((v) => (v.incidents ?? []).length === 0)
    expect(quiet((i) => `npx jest test/${files[i]}.test.ts`)).toBe(true)
    expect(quiet((i) => `cd packages/${files[i]} && cargo test`)).toBe(true)
    // A project's own test or lint script, run after each edit.
    expect(quiet(() => "sh run-tests.sh")).toBe(true)
    expect(quiet(() => "./scripts/lint.sh")).toBe(true)
    expect(quiet((i) => ["which python3", "cat .python-version", "ls ~/.venv/bin", "test -f pyproject.toml"][i % 4]!)).toBe(true)
    // The same breaker still trips on commands that do something.
    expect(quiet((i) => `pip install ${files[i]}`)).toBe(false)
  })

  test("calls held back by the cooldown are no evidence", () => {
    expect(run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", false, 3), 12, true).every((v) => Object.keys(v).length === 0)).toBe(true)
  })
})
