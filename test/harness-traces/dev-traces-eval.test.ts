/**
 * The bar on the development traces, through the real RunLoop in shadow mode (as
 * `loopguard audit` replays them): loop recall ≥ 0.85 at ≤ 0.15 false alarms per 100 clean steps,
 * so that building for other harnesses never costs the development set. The traces are read in
 * place (the fixture's missing-corpus rule: fails with CI=true, says it skipped elsewhere).
 */
import { describe, expect, test } from "bun:test"
import { loadLabels, readTrace } from "../../packages/core/src/trace/dev-traces.fixture.js"
import { evaluate, type LabelledTrace } from "../bench/trace-eval.js"

describe("loop detectors on the development traces", () => {
  test("recall ≥ 0.85 at ≤ 0.15 false alarms per 100 clean steps; stall warnings under one per run", async () => {
    const labels = await loadLabels("the development-trace evaluation")
    if (labels === null) return
    const traces: Array<LabelledTrace> = []
    for (const [file, label] of Object.entries(labels.files)) traces.push({ file, text: await readTrace(file), episodes: label.episodes })
    const e = await evaluate(traces)
    expect(e.files).toBeGreaterThan(40)
    expect(e.recall).toBeGreaterThanOrEqual(0.85)
    expect(e.falseAlarmsPer100).toBeLessThanOrEqual(0.15)
    expect(e.stallWarnings.perRun[1]).toBeLessThan(1)
  }, 60_000)
})
