import { describe, expect, test } from "bun:test"
import { camelCaseKey, renameSnakeCaseKeys, renameSnakeCasePath } from "./snake-case-keys.js"

const SHAPE = { tryBest: { enabled: false, maxResumes: 2, editTools: ["edit"] }, prices: {}, loop: { maxSteps: 50 } }

describe("renameSnakeCaseKeys", () => {
  test("snake_case spellings of the shape's fields are renamed at every depth and reported", () => {
    const r = renameSnakeCaseKeys({ try_best: { max_resumes: 4, enabled: true }, loop: { maxSteps: 3 } }, SHAPE)
    expect(r.value).toEqual({ tryBest: { maxResumes: 4, enabled: true }, loop: { maxSteps: 3 } })
    expect(r.renamed).toEqual([
      { from: ["try_best"], to: ["tryBest"], ignored: false },
      { from: ["try_best", "max_resumes"], to: ["tryBest", "maxResumes"], ignored: false }
    ])
  })

  test("free-form tables keep their keys; unknown keys stay for the schema to refuse; the new spelling wins over the old", () => {
    const r = renameSnakeCaseKeys({ prices: { my_model: { inputPerMTok: 1 } }, loop: { max_stepz: 1 }, tryBest: { maxResumes: 1, max_resumes: 9 } }, SHAPE)
    expect(r.value).toEqual({ prices: { my_model: { inputPerMTok: 1 } }, loop: { max_stepz: 1 }, tryBest: { maxResumes: 1 } })
    expect(r.renamed).toEqual([{ from: ["tryBest", "max_resumes"], to: ["tryBest", "maxResumes"], ignored: true }])
    expect(renameSnakeCaseKeys([1, 2], SHAPE)).toEqual({ value: [1, 2], renamed: [] })
  })
})

test("renameSnakeCasePath and camelCaseKey", () => {
  expect(renameSnakeCasePath(["try_best", "max_resumes"], SHAPE)).toEqual(["tryBest", "maxResumes"])
  expect(renameSnakeCasePath(["prices", "my_model", "input_per"], SHAPE)).toEqual(["prices", "my_model", "input_per"])
  expect(camelCaseKey("max_consecutive_rollbacks")).toBe("maxConsecutiveRollbacks")
})
