import { describe, expect, test } from "bun:test"
import type { Incident } from "@loopguard/core/report"
import { toJsonLine, shortDetail } from "./format.js"
import { auditIncidentOf, byStep, userTurns } from "@loopguard/effect/audit"
import { parseTrace, traceToSteps } from "@loopguard/core/trace"

const incident = (step: number, detector: string, action: string, detail: unknown = {}): Incident =>
  ({ step, detector, action, kind: "loop", detail }) as Incident

describe("auditIncidentOf", () => {
  test("incidents keep the step the RunLoop gave them, sorted stably by step; details become objects", () => {
    const got = byStep(
      [
        incident(3, "text-loop", "mild", { count: 1 }),
        incident(2, "repeated-action", "note", { count: 3 }),
        incident(3, "doom-loop", "fail-non-interactive", "raw")
      ].map(auditIncidentOf)
    )
    expect(got).toEqual([
      { step: 2, detector: "repeated-action", action: "note", kind: "loop", detail: { count: 3 } },
      { step: 3, detector: "text-loop", action: "mild", kind: "loop", detail: { count: 1 } },
      { step: 3, detector: "doom-loop", action: "fail-non-interactive", kind: "loop", detail: { value: "raw" } }
    ])
  })

  test("an incident filed without a kind gets the kind its detector and action mean", () => {
    expect(auditIncidentOf({ step: 0, detector: "cancel", action: "stop" }).kind).toBe("fault")
  })
})

describe("userTurns", () => {
  test("the first user line is the prompt; later ones arrive before the step they precede", () => {
    const text = [
      { type: "user", text: "task" },
      { type: "assistant", text: "a" },
      { type: "user", text: "complaint" },
      { type: "assistant", text: "b" },
      { type: "user", text: "after" }
    ].map((l) => JSON.stringify(l)).join("\n")
    const t = userTurns(traceToSteps(parseTrace(text).lines))
    expect(t.prompt).toBe("task")
    expect([0, 1, 2].map((s) => t.before(s))).toEqual([[], ["complaint"], ["after"]])
  })
})

describe("format", () => {
  test("a failed file is {file, error, errors}", () => {
    expect(JSON.parse(toJsonLine({ _tag: "failed", file: "f", errors: ["f:2: bad", "f:5: worse"] }))).toEqual({ file: "f", error: "f:2: bad", errors: ["f:2: bad", "f:5: worse"] })
  })
  test("shortDetail fits one line", () => {
    const s = shortDetail({ key: "x".repeat(500), count: 3 })
    expect(s.length).toBeLessThanOrEqual(100)
    expect(s).toContain("count=3")
  })
})
