/**
 * The precision bar (docs/loops.md) through the real RunLoop in shadow mode, as `loopguard audit`
 * replays runs: loop recall ≥ 0.9 at ≤ 0.1 false alarms per 100 clean steps, and no pause, stop or
 * popped reply outside a labelled episode — on the development traces (read in place; reported as
 * skipped when they are absent, an error with CI=true) and on the seeded precision set: healthy
 * and looping runs in SWE-agent, OpenHands, Codex CLI, Claude Code and mini-SWE-agent styles.
 */
import { describe, expect, test } from "bun:test"
import { devTraceTestName, devTracesPresent, loadLabels, readTrace } from "../../packages/core/src/trace/dev-traces.fixture.js"
import { evaluate, type LabelledTrace } from "../bench/trace-eval.js"
import { generatePrecisionSet } from "./generate.js"

const present = devTracesPresent("the development-trace evaluation")

describe("the precision bar", () => {
  test.skipIf(!present)(devTraceTestName("development traces: recall ≥ 0.9 at ≤ 0.1 false alarms per 100 clean steps, no false pause or stop; stall warnings under one per run", present), async () => {
    const labels = (await loadLabels("the development-trace evaluation"))!
    const traces: Array<LabelledTrace> = []
    for (const [file, label] of Object.entries(labels.files)) traces.push({ file, text: await readTrace(file), episodes: label.episodes })
    const e = await evaluate(traces)
    expect(e.files).toBeGreaterThan(40)
    expect(e.recall).toBeGreaterThanOrEqual(0.9)
    expect(e.falseAlarmsPer100).toBeLessThanOrEqual(0.1)
    expect(e.falseHalts).toEqual([])
    expect(e.stallWarnings.perRun[1]).toBeLessThan(1)
  }, 120_000)

  test("generated healthy runs of five harnesses: no false pause, stop or pop, ≤ 0.1 false alarms per 100 steps", async () => {
    const { healthy } = generatePrecisionSet(4, 1)
    expect(new Set(healthy.map((t) => t.harness)).size).toBe(5)
    const e = await evaluate(healthy)
    expect(e.cleanSteps).toBeGreaterThan(1500)
    expect(e.falseHalts).toEqual([])
    expect(e.falseAlarmsPer100).toBeLessThanOrEqual(0.1)
  }, 120_000)

  test("generated looping runs of every loop kind: recall ≥ 0.9, every stop inside its episode", async () => {
    const { looping } = generatePrecisionSet(4, 1)
    const e = await evaluate(looping)
    expect(new Set(looping.map((t) => t.scenario)).size).toBeGreaterThanOrEqual(12)
    expect(e.recall).toBeGreaterThanOrEqual(0.9)
    expect(e.falseHalts).toEqual([])
  }, 120_000)
})
