import { expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "@loopguard/effect"
import { settingsDiff } from "./settings-diff.js"

test("only the changed leaves are listed, by their dotted path", () => {
  expect(settingsDiff(DEFAULT_CONFIG, DEFAULT_CONFIG)).toEqual([])
  const changed = { ...DEFAULT_CONFIG, loop: { ...DEFAULT_CONFIG.loop, maxSteps: 7 }, prices: { m: { inputPerMTok: 1, outputPerMTok: 2 } } }
  expect(settingsDiff(changed, DEFAULT_CONFIG)).toEqual(["loop.maxSteps: 7", `prices.m: {"inputPerMTok":1,"outputPerMTok":2}`])
  expect(settingsDiff({ a: [1, 2] }, { a: [1] })).toEqual(["a: [1,2]"])
})
