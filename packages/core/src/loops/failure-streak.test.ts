import { describe, expect, test } from "bun:test"
import { failureStreak } from "./failure-streak.js"
import { stepRecord } from "./fixtures.js"

const failing = (i: number) => stepRecord({ action: `bash(cmd ${i})`, observation: `error ${i}`, failed: true })
const ok = (i: number) => stepRecord({ action: `bash(ok ${i})`, observation: `fine ${i}` })

describe("failureStreak", () => {
  test("8 failing steps in a row, each different: found; 7: not", () => {
    expect(failureStreak(Array.from({ length: 7 }, (_, i) => failing(i)))).toBeNull()
    expect(failureStreak(Array.from({ length: 8 }, (_, i) => failing(i)))).toEqual({ count: 8, distinct: 8 })
  })

  test("a success, a file change or a step without a call ends the streak", () => {
    const run = Array.from({ length: 10 }, (_, i) => failing(i))
    expect(failureStreak([...run.slice(0, 5), ok(0), ...run.slice(5)])).toBeNull()
    const changed = stepRecord({ action: "edit(a)", observation: "", changed: true })
    expect(failureStreak([...run.slice(0, 5), changed, ...run.slice(5)])).toBeNull()
    expect(failureStreak([...run.slice(0, 5), stepRecord({ action: "", observation: "" }), ...run.slice(5)])).toBeNull()
    expect(failureStreak([ok(1), ...run])?.count).toBe(10)
  })
})
