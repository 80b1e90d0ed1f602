/** What `sessions import` prints of a file it cannot read. */
import { expect, test } from "bun:test"
import { firstProblems, quotedId, sessionIdProblem } from "./sessions.js"

test("the first ten problems, then how many more (a binary file has one per line)", () => {
  const problems = Array.from({ length: 29 }, (_, i) => `f.jsonl:${i + 1}: not JSON`)
  expect(firstProblems(problems).split("\n")).toEqual([...problems.slice(0, 10), "… and 19 more"])
  expect(firstProblems(problems.slice(0, 3))).toBe(problems.slice(0, 3).join("\n"))
})

test("a session id an error quotes is cut to its beginning when long; the problem says how long it is", () => {
  const long = "x".repeat(10_000)
  expect(sessionIdProblem(long)).toBe("is 10000 characters long (at most 128)")
  expect(quotedId(long).length).toBeLessThan(80)
  expect(quotedId("s-1")).toBe('"s-1"')
})
