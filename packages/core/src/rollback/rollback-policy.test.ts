import { describe, expect, test } from "bun:test"
import { checkAtLoopStart, decideRollback, DEFAULT_ROLLBACK_OPTIONS, initRollback, onSuccessfulTurn } from "./rollback-policy.js"
import type { RollbackState } from "./rollback-policy.js"
import type { RollbackTrigger } from "./triggers.js"

const leak: RollbackTrigger = { kind: "format-leak", marker: "use_mcp_tool", family: "MCP XML" }
const refusal: RollbackTrigger = { kind: "refusal", phrase: "je ne peux pas", language: "fr" }
const dup: RollbackTrigger = { kind: "duplicate-query", agent: "main", tool: "google_search", fingerprint: "{}", count: 1 }
const useless: RollbackTrigger = { kind: "useless-result", rule: "empty-search", tool: "google_search" }

/** Feed the same trigger n times in a row; return every decision. */
const run = (trigger: RollbackTrigger, n: number, max?: number) => {
  let state: RollbackState = initRollback()
  const out = []
  for (let i = 0; i < n; i++) {
    const d = decideRollback(state, trigger, max === undefined ? {} : { maxConsecutiveRollbacks: max })
    out.push(d)
    state = d.state
  }
  return out
}

describe("decideRollback", () => {
  test("defaults: cap 5; format leak and refusal end the loop, duplicate and useless results run", () => {
    expect(DEFAULT_ROLLBACK_OPTIONS.maxConsecutiveRollbacks).toBe(5)
    expect(DEFAULT_ROLLBACK_OPTIONS.atCap).toEqual({ "format-leak": "end-loop", refusal: "end-loop", "duplicate-query": "let-run", "useless-result": "let-run" })
  })

  test("a rollback bumps the count and asks for the reply to be excluded", () => {
    const d = decideRollback(initRollback(), leak)
    expect(d).toEqual({ action: "rollback", state: { consecutiveRollbacks: 1 }, trigger: leak, exclude: "rollback" })
  })

  for (const trigger of [leak, refusal]) {
    test(`${trigger.kind}: four rollbacks, then the fifth in a row ends the loop with rollback_cap`, () => {
      const ds = run(trigger, 5)
      expect(ds.map((d) => d.action)).toEqual(["rollback", "rollback", "rollback", "rollback", "end-loop"])
      expect(ds[4]).toMatchObject({ reason: "rollback_cap", state: { consecutiveRollbacks: 4 } })
    })
  }

  for (const trigger of [dup, useless]) {
    test(`${trigger.kind}: at the cap it is let run, the count does not grow`, () => {
      const ds = run(trigger, 7)
      expect(ds.map((d) => d.action)).toEqual(["rollback", "rollback", "rollback", "rollback", "let-run", "let-run", "let-run"])
      expect(ds[6]?.state).toEqual({ consecutiveRollbacks: 4 })
    })
  }

  test("kinds share one count: after duplicates at the cap, a refusal ends the loop", () => {
    const [last] = run(dup, 5).slice(-1)
    expect(decideRollback(last!.state, refusal).action).toBe("end-loop")
  })

  test("the cap and the at-cap table are options", () => {
    expect(run(leak, 3, 2).map((d) => d.action)).toEqual(["rollback", "end-loop", "end-loop"])
    expect(run(leak, 1, 1).map((d) => d.action)).toEqual(["end-loop"])
    expect(run(leak, 1, 0).map((d) => d.action)).toEqual(["end-loop"])
    expect(decideRollback({ consecutiveRollbacks: 4 }, leak, { atCap: { ...DEFAULT_ROLLBACK_OPTIONS.atCap, "format-leak": "let-run" } }).action).toBe("let-run")
  })
})

describe("checkAtLoopStart and reset", () => {
  test("below the cap the loop goes on; at or above it the loop ends", () => {
    expect(checkAtLoopStart({ consecutiveRollbacks: 4 })).toEqual({ action: "continue" })
    expect(checkAtLoopStart({ consecutiveRollbacks: 5 })).toEqual({ action: "end-loop", reason: "rollback_cap" })
    expect(checkAtLoopStart({ consecutiveRollbacks: 2 }, { maxConsecutiveRollbacks: 2 }).action).toBe("end-loop")
  })

  test("the policy's own decisions never trip the loop-start check", () => {
    for (const d of run(dup, 10)) expect(checkAtLoopStart(d.state).action).toBe("continue")
  })

  test("a fully successful turn resets the count, so the cap guards consecutive rollbacks only", () => {
    let state = run(leak, 4)[3]!.state
    expect(state.consecutiveRollbacks).toBe(4)
    state = onSuccessfulTurn(state)
    expect(state).toEqual({ consecutiveRollbacks: 0 })
    expect(decideRollback(state, leak).action).toBe("rollback")
  })
})
