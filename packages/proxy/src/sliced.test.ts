import { expect, test } from "bun:test"
import { runSliced, runToEnd } from "./sliced.js"

/** Counts to `n`, pausing after each number; each step spins about `spinMs`. */
function* counting(n: number, spinMs: number, seen: Array<string>): Generator<void, number> {
  for (let i = 0; i < n; i++) {
    const until = performance.now() + spinMs
    while (performance.now() < until) {}
    seen.push(`step ${i}`)
    yield
  }
  return n
}

test("runToEnd runs the work at once and gives its result", () => {
  const seen: Array<string> = []
  expect(runToEnd(counting(3, 0, seen))).toBe(3)
  expect(seen).toEqual(["step 0", "step 1", "step 2"])
})

test("runSliced serves the event loop once a slice has taken its time, and only then", async () => {
  const seen: Array<string> = []
  setImmediate(() => seen.push("served"))
  // Steps of about 2 ms in slices of 3 ms: a pause after the second step (or the first, on a busy
  // machine), where the waiting callback runs, before the work ends.
  expect(await runSliced(counting(4, 2, seen), 3)).toBe(4)
  expect(seen.filter((s) => s !== "served")).toEqual(["step 0", "step 1", "step 2", "step 3"])
  expect(seen.indexOf("served")).toBeGreaterThan(0)
  expect(seen.indexOf("served")).toBeLessThan(seen.length - 1)
  const quick: Array<string> = []
  setImmediate(() => quick.push("served"))
  // Steps far shorter than the slice: no pause at all.
  expect(await runSliced(counting(50, 0, quick), 1_000)).toBe(50)
  expect(quick.indexOf("served")).toBe(-1)
  await new Promise((resolve) => setImmediate(resolve))
  expect(quick.at(-1)).toBe("served")
})
