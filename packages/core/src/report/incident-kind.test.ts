import { describe, expect, test } from "bun:test"
import { incidentKind, LOOP_DETECTOR_NAMES } from "./incident-kind.js"
import { IncidentThrottle } from "./incident-throttle.js"

describe("incidentKind", () => {
  test("every loop detector is a loop; stalls, faults and recoveries by name and action", () => {
    for (const d of LOOP_DETECTOR_NAMES) expect(incidentKind(d)).toBe("loop")
    expect(incidentKind("stall-no-file-change")).toBe("stall")
    expect(incidentKind("action-streak")).toBe("stall")
    expect(incidentKind("breaker")).toBe("fault")
    expect(incidentKind("step-cap", "stop")).toBe("fault")
    expect(incidentKind("compaction", "cap")).toBe("recovery")
    expect(incidentKind("failed", "exit:model_error")).toBe("fault")
    expect(incidentKind("think-only", "think-only")).toBe("recovery")
    expect(incidentKind("rollback", "rolled-back")).toBe("recovery")
  })
})

describe("IncidentThrottle", () => {
  const loop = (step: number, action: string, detector = "streak-crop") => ({ step, detector, action, kind: "loop" as const })

  test("the same action within the gap is the same episode; an escalation and a later episode go through", () => {
    const t = new IncidentThrottle(3)
    expect([loop(2, "crop"), loop(5, "crop"), loop(8, "crop"), loop(9, "cache-risk"), loop(20, "crop")].map((i) => t.admit(i))).toEqual([
      true,
      false,
      false,
      true,
      true
    ])
  })

  test("recoveries and faults are never throttled; a live pause always goes through, a shadow one is throttled", () => {
    const t = new IncidentThrottle(3)
    expect([1, 2, 3].map((step) => t.admit({ step, detector: "think-only", action: "think-only", kind: "recovery" }))).toEqual([true, true, true])
    expect([1, 2].map((step) => t.admit(loop(step, "pause", "edit-repeat")))).toEqual([true, true])
    const shadow = new IncidentThrottle(3, true)
    expect([1, 2].map((step) => shadow.admit(loop(step, "pause", "edit-repeat")))).toEqual([true, false])
  })
})
