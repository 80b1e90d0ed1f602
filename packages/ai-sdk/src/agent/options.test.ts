import { describe, expect, test } from "bun:test"
import { DEFAULT_JUDGE_CONFIG } from "@loopguard/core/judge"
import { LoopguardAgentOptionsError, resolveAgentOptions } from "./options.js"

const errorsOf = (f: () => unknown): ReadonlyArray<string> => {
  try {
    f()
  } catch (e) {
    if (e instanceof LoopguardAgentOptionsError) return e.errors
    throw e
  }
  return []
}

describe("agent options", () => {
  test("defaults: the judge's config, no budgets, role main, a session id", () => {
    const o = resolveAgentOptions()
    expect(o.judge).toEqual({ ...DEFAULT_JUDGE_CONFIG, loop: { costBudgetUsd: null } })
    expect([o.budgets, o.role, o.sessionId.length > 0, o.middleware.chunkTimeoutMs]).toEqual([{ tokenBudget: null, costBudgetUsd: null }, "main", true, 480_000])
  })

  test("sections merge field by field, the cost budget reaches the judge", () => {
    const o = resolveAgentOptions({ sessionId: "s", repeatedAction: { remindAt: 4, stopAt: 4 }, loop: { tokenBudget: 100, costBudgetUsd: 0.5 }, repeat: { threshold: 5 } })
    expect([o.judge.repeatedAction, o.judge.loop.costBudgetUsd, o.budgets.tokenBudget, o.middleware.repeat.threshold]).toEqual([{ ...DEFAULT_JUDGE_CONFIG.repeatedAction, remindAt: 4, stopAt: 4 }, 0.5, 100, 5])
    expect(resolveAgentOptions({ repeatedAction: { stopAt: null } }).judge.repeatedAction.stopAt).toBeNull()
  })

  test("every bad field is named, the middleware's included", () => {
    expect(
      errorsOf(() => resolveAgentOptions({ repeatedAction: { stopAt: 0 }, loop: { tokenBudget: -5 }, variedRetry: { repeat: 2 } as never, bogus: 1, role: "boss", stream: { chunkTimeoutMs: 0 } } as never))
    ).toEqual([
      "loop.tokenBudget: Expected a value greater than 0",
      "repeatedAction.stopAt: Expected a value greater than or equal to 1",
      "variedRetry.repeat: Expected no excess property",
      "bogus: Expected no excess property",
      "stream.chunkTimeoutMs: Expected a value greater than 0",
      "role: must be one of main, subagent, checkpoint"
    ])
    expect(errorsOf(() => resolveAgentOptions(null as never))).toEqual(["options must be an object"])
    expect(errorsOf(() => resolveAgentOptions({ onEvent: 1 as never, sessionId: "" }))).toEqual(["sessionId: must be a non-empty string", "onEvent: must be a function"])
  })
})

describe("agent options a user gets wrong", () => {
  test("a budget given as a string is refused, not kept as one", () => {
    expect(errorsOf(() => resolveAgentOptions({ loop: { tokenBudget: "1000" as unknown as number } }))).toEqual(["loop.tokenBudget: Expected number or null"])
  })
  test("a ladder that does not climb is refused, as the config file refuses it", () => {
    expect(errorsOf(() => resolveAgentOptions({ repeatedAction: { remindAt: 2 } }))[0]).toContain("the ladder must climb")
    expect(errorsOf(() => resolveAgentOptions({ repeatedAction: { stopAt: 2 } }))[0]).toContain("the ladder must climb")
    expect(errorsOf(() => resolveAgentOptions({ repeatedAction: { repeats: 2, remindAt: 3, stopAt: 4 } }))).toEqual([])
  })
})
