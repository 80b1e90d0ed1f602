import { describe, expect, test } from "bun:test"
import { call, user } from "../../loops/fixtures.js"
import type { Message } from "../../model/index.js"
import { DEFAULT_JUDGE_CONFIG } from "../judge-config.js"
import { LoopLadderDetector } from "./loop-ladder.js"
import type { StepVerdict } from "./step-detector.js"
import { factsOf } from "./test-facts.js"

/** The verdicts of the same call repeated `n` times. */
const repeat = (d: LoopLadderDetector, n: number): Array<StepVerdict> => {
  const history: Array<Message> = [user("u1")]
  return Array.from({ length: n }, (_, i) => {
    history.push(call(`a${i}`, "bash", { command: "ls src" }))
    return d.push(factsOf([...history], i + 1))
  })
}

describe("LoopLadderDetector", () => {
  test("a quiet step gives a null note (it clears the last one) and nothing else", () => {
    const d = new LoopLadderDetector(DEFAULT_JUDGE_CONFIG, "main", false)
    expect(d.push(factsOf([user("u1"), call("a0", "bash", { command: "ls" })], 1))).toEqual({ incidents: [], note: null })
  })

  test("a repeated action climbs note, reminder, then ends the run as idle", () => {
    const verdicts = repeat(new LoopLadderDetector(DEFAULT_JUDGE_CONFIG, "main", false), 12)
    expect(verdicts.some((v) => typeof v.note === "string")).toBe(true)
    expect(verdicts.some((v) => v.reminders?.[0]?.kind === "loop-remind")).toBe(true)
    const stop = verdicts.find((v) => v.exit !== undefined)
    expect(stop?.exit).toMatchObject({ reason: "idle", error: { tag: "IdleLoopError" } })
    expect(stop?.pause).toBeUndefined()
  })

  test("under Try-Best the top rung pauses instead of ending the run", () => {
    const verdicts = repeat(new LoopLadderDetector(DEFAULT_JUDGE_CONFIG, "main", true), 12)
    expect(verdicts.some((v) => v.exit !== undefined)).toBe(false)
    expect(verdicts.find((v) => v.pause !== undefined)?.pause).toMatchObject({ kind: "repeated_action", count: 8 })
  })
})
