import { describe, expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "@loopguard/effect"
import { applyOnPauseFlag } from "./try-best-switch.js"

describe("applyOnPauseFlag", () => {
  const off = { ...DEFAULT_CONFIG, tryBest: { ...DEFAULT_CONFIG.tryBest, enabled: false, onPause: "continue" as const } }

  test("--on-pause turns try-best on and says so", () => {
    const r = applyOnPauseFlag(off, true)
    expect(r.config.tryBest.enabled).toBe(true)
    expect(r.notes[0]).toContain("try-best enabled by --on-pause continue")
    expect(off.tryBest.enabled).toBe(false)
  })

  test("a configured policy with try-best off is left off, with a warning", () => {
    const r = applyOnPauseFlag(off, false)
    expect(r.config.tryBest.enabled).toBe(false)
    expect(r.notes[0]).toContain("no pause will happen")
  })

  test("nothing to say when try-best is on, or the policy is the default", () => {
    expect(applyOnPauseFlag({ ...off, tryBest: { ...off.tryBest, enabled: true } }, true).notes).toEqual([])
    expect(applyOnPauseFlag(DEFAULT_CONFIG, false).notes).toEqual([])
  })
})
