import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "../../model/index.js"
import { DEFAULT_JUDGE_CONFIG } from "../judge-config.js"
import { BreakerDetector } from "./breaker.js"
import type { StepVerdict } from "./step-detector.js"
import { bashReply, factsOf } from "./test-facts.js"

const failing = (i: number): AssistantMessage => bashReply(i, "make", { state: "error", error: `boom ${i}` })
const run = (d: BreakerDetector, n: number, paused = false): Array<StepVerdict> =>
  Array.from({ length: n }, (_, i) => d.push(factsOf([], i + 1, { reply: failing(i), ctx: paused ? { toolsPaused: true } : {} })))

describe("BreakerDetector", () => {
  test("a failure storm degrades with a reminder, then hands back only if nothing ended the run first", () => {
    const verdicts = run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", false), 12)
    const degrade = verdicts.find((v) => v.breakerTrip !== undefined)
    expect(degrade?.breakerTrip).toBe("degrade")
    expect(degrade?.reminders?.map((r) => r.kind)).toEqual(["breaker-degrade"])
    const handBack = verdicts.find((v) => v.exitIfNone !== undefined)
    expect(handBack?.exitIfNone?.reason).toBe("circuit_open")
    expect(verdicts.some((v) => v.exit !== undefined)).toBe(false)
  })

  test("with a fallback model the ladder reroutes", () => {
    const verdicts = run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", true), 12)
    expect(verdicts.map((v) => v.breakerTrip).filter((t) => t !== undefined)).toContain("reroute")
  })

  test("calls held back by the cooldown are no evidence", () => {
    expect(run(new BreakerDetector(DEFAULT_JUDGE_CONFIG.breaker, "main", false), 12, true).every((v) => Object.keys(v).length === 0)).toBe(true)
  })
})
