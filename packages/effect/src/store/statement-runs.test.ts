import { expect, test } from "bun:test"
import { statementRuns } from "./statement-runs.js"

test("runs of at most the size, in order, none empty", () => {
  expect(statementRuns([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]])
  expect(statementRuns([], 2)).toEqual([])
  expect(statementRuns(Array.from({ length: 401 }, (_, i) => i)).map((r) => r.length)).toEqual([200, 200, 1])
})
