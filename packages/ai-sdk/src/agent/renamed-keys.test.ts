/** The judge's sections under their snake_case names still work for one release, with a warning each. (Old names on purpose.) */
import { afterEach, beforeEach, expect, spyOn, test, type Mock } from "bun:test"
import { resolveAgentOptions, type LoopguardAgentOptions } from "./options.js"

let warn: Mock<typeof console.warn>
beforeEach(() => {
  warn = spyOn(console, "warn").mockImplementation(() => {})
})
afterEach(() => warn.mockRestore())

test("try_best.edit_window and repeated_action reach the judge as tryBest.editWindow and repeatedAction, one warning each", () => {
  const old = { try_best: { edit_window: 7 }, repeated_action: { stopAt: 6 } } as unknown as LoopguardAgentOptions
  const o = resolveAgentOptions(old)
  expect(o.judge.tryBest.editWindow).toBe(7)
  expect(o.judge.repeatedAction.stopAt).toBe(6)
  expect(warn.mock.calls.map((c) => c[0])).toEqual([
    "loopguard: option try_best is deprecated, use tryBest (the snake_case name is accepted for one release)",
    "loopguard: option try_best.edit_window is deprecated, use tryBest.editWindow (the snake_case name is accepted for one release)",
    "loopguard: option repeated_action is deprecated, use repeatedAction (the snake_case name is accepted for one release)"
  ])
})
