/**
 * The second evaluation set: generated runs in the shapes of five other harnesses, audited by
 * the real RunLoop in shadow mode and scored like the development traces. The bars are the
 * issue's: recall ≥ 0.8 at ≤ 0.15 false alarms per 100 clean steps overall, and on the
 * OpenHands-style runs alone at least 0.5 at ≤ 0.3.
 */
import { parseTrace } from "@loopguard/core/trace"
import { describe, expect, test } from "bun:test"
import { evaluate } from "../bench/trace-eval.js"
import { generateHarnessTraces } from "./generate.js"
import { HARNESSES } from "./harness-style.js"

describe("generated traces of other harnesses", () => {
  test("parse cleanly, label episodes inside the run, and are the same for the same seed", () => {
    const traces = generateHarnessTraces(7, 40)
    expect(new Set(traces.map((t) => t.harness))).toEqual(new Set(HARNESSES))
    expect(traces.filter((t) => t.stuck).length).toBeGreaterThan(10)
    for (const t of traces) {
      const parsed = parseTrace(t.text, t.file)
      expect([t.file, parsed.errors]).toEqual([t.file, []])
      expect(parsed.lines.filter((l) => l.type === "assistant")).toHaveLength(t.n_steps)
      for (const e of t.episodes) {
        expect(e.start_step).toBeLessThanOrEqual(e.onset_step)
        expect(e.onset_step).toBeLessThanOrEqual(e.end_step)
        expect(e.end_step).toBeLessThan(t.n_steps)
      }
    }
    expect(generateHarnessTraces(7, 40).map((t) => t.text)).toEqual(traces.map((t) => t.text))
    expect(generateHarnessTraces(8, 40).map((t) => t.text)).not.toEqual(traces.map((t) => t.text))
  })

  for (const seed of [1, 2]) {
    test(`seed ${seed}: loop recall ≥ 0.8 at ≤ 0.15 false alarms per 100 clean steps; stall warnings rare`, async () => {
      const e = await evaluate(generateHarnessTraces(seed, 90))
      expect(e.recall).toBeGreaterThanOrEqual(0.8)
      expect(e.falseAlarmsPer100).toBeLessThanOrEqual(0.15)
      expect(e.stallWarnings.perRun[1]).toBeLessThanOrEqual(0.5)
    }, 60_000)
  }

  test("the OpenHands-style runs alone: recall ≥ 0.5 at ≤ 0.3", async () => {
    const openhands = [1, 2, 3].flatMap((seed) => generateHarnessTraces(seed, 90).filter((t) => t.harness === "openhands"))
    const e = await evaluate(openhands)
    expect(e.rows.find((r) => r.detector === "any loop detector")!.episodes).toBeGreaterThan(10)
    expect(e.recall).toBeGreaterThanOrEqual(0.5)
    expect(e.falseAlarmsPer100).toBeLessThanOrEqual(0.3)
  }, 60_000)
})
