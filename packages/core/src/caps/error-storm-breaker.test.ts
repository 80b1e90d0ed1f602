import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { BreakerAction, BreakerOptions, BreakerState } from "./error-storm-breaker.js"
import { initBreaker, recordToolResult } from "./error-storm-breaker.js"

/** Feed results ("F" = failure, "S" = success); collect the actions that fired. */
const feed = (pattern: string, options: Partial<BreakerOptions> = {}, start: BreakerState = initBreaker()) => {
  let state = start
  const actions: Array<{ at: number; action: BreakerAction }> = []
  ;[...pattern].forEach((c, i) => {
    const d = recordToolResult(state, c === "F" ? { ok: false, tool: "bash", error: "exit 1" } : { ok: true, tool: "bash" }, options)
    state = d.state
    if (d.action !== null) actions.push({ at: i, action: d.action })
  })
  return { state, actions }
}

describe("tripping", () => {
  test("3 consecutive failures trip; 2 do not", () => {
    expect(feed("FF").actions).toEqual([])
    const { actions } = feed("FFF")
    expect(actions.map((a) => [a.at, a.action.type, a.action.trigger])).toEqual([[2, "degrade", "consecutive"]])
    expect(actions[0]!.action.detail).toContain("3 consecutive tool failures")
  })

  test("a success in between resets the consecutive count", () => {
    expect(feed("FFSFF", { minSamples: 99 }).actions).toEqual([])
  })

  test("failure rate: 60% over the window trips once 5 samples are in", () => {
    // F F S F F : 4/5 = 0.8, never 3 in a row
    const { actions } = feed("FFSFF", { consecutiveFailures: 99 })
    expect(actions.map((a) => [a.at, a.action.trigger])).toEqual([[4, "rate"]])
  })

  test("below minSamples the rate rule is silent", () => {
    expect(feed("FSFF", { consecutiveFailures: 99 }).actions).toEqual([])
  })

  test("the window forgets old results", () => {
    // 3 failures among 14 results is 21%, but the last 5 (S F S F F) are 60% failures.
    const { actions } = feed("SSSSSSSSSSFSFF", { consecutiveFailures: 99, window: 5 })
    expect(actions.map((a) => [a.at, a.action.trigger])).toEqual([[13, "rate"]])
    expect(feed("SSSSSSSSSSFSFF", { consecutiveFailures: 99, window: 14 }).actions).toEqual([])
  })

  test("a success never trips", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 30 }), (bits) => {
        let state = initBreaker()
        for (const fail of bits) {
          const d = recordToolResult(state, { ok: !fail })
          if (!fail) expect(d.action).toBeNull()
          state = d.state
        }
      })
    )
  })
})

describe("escalation ladder", () => {
  test("without a fallback: degrade, then hand back with circuit_open", () => {
    const { actions } = feed("FFFFFF")
    expect(actions.map((a) => a.action.type)).toEqual(["degrade", "hand-back"])
    const last = actions[1]!.action
    expect(last.type === "hand-back" && [last.reason, last.error.tag]).toEqual(["circuit_open", "CircuitOpenError"])
  })

  test("with a fallback: degrade, reroute, hand back", () => {
    const { actions } = feed("FFFFFFFFF", { rerouteAvailable: true })
    expect(actions.map((a) => [a.at, a.action.type])).toEqual([[2, "degrade"], [5, "reroute"], [8, "hand-back"]])
  })

  test("a trip needs fresh evidence: the next failure alone does not trip again", () => {
    const { actions } = feed("FFFF")
    expect(actions.length).toBe(1)
  })

  test("one lucky success does not restart the ladder", () => {
    const { actions } = feed("FFFSFFF")
    expect(actions.map((a) => a.action.type)).toEqual(["degrade", "hand-back"])
  })

  test("three successes in a row calm the storm: the ladder starts again at degrade", () => {
    const { actions } = feed("FFFSSSFFF")
    expect(actions.map((a) => a.action.type)).toEqual(["degrade", "degrade"])
  })

  test("the state is serializable and keeps the last 3 failures as evidence", () => {
    const { state } = feed("FFSF")
    expect(JSON.parse(JSON.stringify(state))).toEqual(state)
    expect(state.lastFailures).toEqual(["bash: exit 1", "bash: exit 1", "bash: exit 1"])
  })
})
