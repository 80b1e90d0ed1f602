import { describe, expect, test } from "bun:test"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { call } from "./fixtures.js"
import { steppingOnward, stepsDebugger } from "./debugger-steps.js"
import { stepRecordOf } from "./step-record.js"

const answered = (m: AssistantMessage, output: string): AssistantMessage => ({
  ...m,
  parts: m.parts.map((p) => (p.type === "tool" ? ({ ...p, state: "completed", output } as ToolPart) : p))
})
/** The lines of the program stepped through (numbers are masked in what the detectors compare). */
const SOURCE: Record<number, string> = { 19: "for num, unit in PATTERN.findall(s):", 20: "n = int(num)", 21: "if unit == 'h':", 22: "total += n * 3600", 23: "elif unit == 'm':", 40: "while not ready():", 41: "time.sleep(poll)" }

/** pdb's `n` answered with the line it stopped at. */
const next = (i: number, line: number) => stepRecordOf(answered(call(`a${i}`, "execute_bash", { command: "n", is_input: "true" }), `> /repo/src/durations.py(${line})parse_duration()\n-> ${SOURCE[line]}`))

describe("stepsDebugger", () => {
  test("a debugger's step command alone on its line; anything else is not", () => {
    for (const command of ["n", "next", "s", "step 2", "until 30", "c", "finish"]) expect([command, stepsDebugger(stepRecordOf(call("a", "bash", { command })))]).toEqual([command, true])
    for (const command of ["ls", "npm test", "p total", "next build"]) expect([command, stepsDebugger(stepRecordOf(call("a", "bash", { command })))]).toEqual([command, false])
  })
})

describe("steppingOnward", () => {
  test("stepping through a loop body: on while the newest looks reach a line not shown before", () => {
    const run = [19, 20, 21, 22, 19, 20, 21, 23].map((line, i) => next(i, line))
    expect(steppingOnward(run, 3)).toBe(true)
    // Three looks at lines already shown: round the loop again, nothing new yet.
    expect(steppingOnward(run.slice(0, 7), 3)).toBe(false)
  })

  test("a loop it never leaves (two lines in turn) is not stepping on; nor is a run of other commands", () => {
    const stuck = [40, 41, 40, 41, 40, 41].map((line, i) => next(i, line))
    expect(steppingOnward(stuck, 3)).toBe(false)
    const ls = [1, 2, 3].map((i) => stepRecordOf(answered(call(`b${i}`, "bash", { command: "ls" }), `file${i}`)))
    expect(steppingOnward(ls, 3)).toBe(false)
  })
})
