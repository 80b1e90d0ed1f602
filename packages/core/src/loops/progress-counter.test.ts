import { describe, expect, test } from "bun:test"
import { countingOn, furtherOn, progressOf } from "./progress-counter.js"

describe("progressOf", () => {
  test("a fraction of work done, N of M, or a percentage; no date, no fraction past its whole", () => {
    expect(progressOf("embedded 5000 docs (15000/50000) in 62.2s")).toEqual({ done: 15000, of: 50000 })
    expect(progressOf("Epoch 7/12 - loss 0.29")).toEqual({ done: 7, of: 12 })
    expect(progressOf("page 3 of 9")).toEqual({ done: 3, of: 9 })
    expect(progressOf("upload 42.5% done")).toEqual({ done: 42.5, of: 100 })
    expect(progressOf("built on 2025/08/14")).toBeNull()
    expect(progressOf("ratio 9/3, 250%")).toBeNull()
    expect(progressOf("error: connection refused")).toBeNull()
  })
})

describe("countingOn", () => {
  test("every run further on than the one before, out of the same whole; only the newest may have no counter", () => {
    expect(countingOn(["(5000/50000)", "(10000/50000)", "(15000/50000)"])).toBe(true)
    expect(countingOn(["attempt 1/5 failed", "attempt 1/5 failed"])).toBe(false)
    expect(countingOn(["3/10", "2/10", "4/10"])).toBe(false)
    expect(countingOn(["3/10", "4/12"])).toBe(false)
    expect(countingOn(["3/10", "4/10", "nothing left to do"])).toBe(true)
    expect(countingOn(["3/10", "no counter", "4/10"])).toBe(false)
    expect(countingOn(["3/10", "no counter"])).toBe(false)
    expect(countingOn(["3/10"])).toBe(false)
  })
})

describe("furtherOn", () => {
  test("a log read again that counts further out of the same whole moved on; new pids or restart counts do not", () => {
    expect(furtherOn("migrating table 1/9\nmigrating table 2/9", "migrating table 2/9\nmigrating table 3/9")).toBe(true)
    expect(furtherOn("Error: EADDRINUSE (pid 4241), restart 3", "Error: EADDRINUSE (pid 4242), restart 4")).toBe(false)
    expect(furtherOn("step 3/9", "step 3/9")).toBe(false)
    expect(furtherOn("step 3/9", "part 1/2")).toBe(false)
  })
})
