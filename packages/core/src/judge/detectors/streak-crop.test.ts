import { describe, expect, test } from "bun:test"
import { reply, user } from "../../loops/fixtures.js"
import type { Message } from "../../model/index.js"
import { DEFAULT_JUDGE_CONFIG } from "../judge-config.js"
import { StreakCropDetector } from "./streak-crop.js"
import { factsOf } from "./test-facts.js"

const K = (id: string) => reply({ id, reasoning: "I must read a again", tools: [["read", { path: "a" }]] })
const config = { ...DEFAULT_JUDGE_CONFIG.loopStreakRecovery, enabled: true }

describe("StreakCropDetector", () => {
  test("two like replies: nothing; the third asks for a crop on the user message and hands off", () => {
    const d = new StreakCropDetector(config, false)
    expect(d.push(factsOf([user("u1"), K("a1"), K("a2")], 2))).toEqual({})
    const v = d.push(factsOf([user("u1"), K("a1"), K("a2"), K("a3")], 3))
    expect(v.cropped).toBe(true)
    expect(v.crop?.on).toBe("u1")
    expect(v.crop?.marker).toMatchObject({ from: "a1", to: "a3" })
    expect(v.incidents?.map((i) => i.action)).toEqual(["crop"])
  })

  test("shadow mode asks for no crop, says detect, and its would-be crop steers the next step", () => {
    const d = new StreakCropDetector(config, true)
    const history: Array<Message> = [user("u1"), K("a1"), K("a2"), K("a3")]
    const v = d.push(factsOf(history, 3))
    expect(v.crop).toBeUndefined()
    expect(v.incidents?.map((i) => i.action)).toEqual(["detect"])
    // The would-be crop covers a1..a3, so one more like reply is not yet a new streak.
    expect(d.push(factsOf([...history, K("a4")], 4))).toEqual({})
  })

  test("a crop over more blocks than the cache allows also files a cache risk", () => {
    const d = new StreakCropDetector({ ...config, cacheRiskBlocks: 1 }, false)
    const v = d.push(factsOf([user("u1"), K("a1"), K("a2"), K("a3")], 3))
    expect(v.incidents?.map((i) => i.action)).toEqual(["crop", "cache-risk"])
  })
})
