import { describe, expect, test } from "bun:test"
import { emptyMerge, mergeInto } from "./merge.js"

const idle = { reason: "idle" as const, error: { tag: "IdleLoopError", message: "a" } }
const textLoop = { reason: "text_loop" as const, error: { tag: "TextLoopError", message: "b" } }
const circuit = { reason: "circuit_open" as const, error: { tag: "CircuitOpen", message: "c" } }

describe("mergeInto", () => {
  test("incidents and reminders keep the detectors' order", () => {
    const m = [
      { incidents: [{ step: 1, detector: "a", action: "x", detail: {} }], reminders: [{ kind: "loop-remind" as const, text: "1" }] },
      { incidents: [{ step: 1, detector: "b", action: "y", detail: {} }], reminders: [{ kind: "text-loop-mild" as const, text: "2" }] }
    ].reduce(mergeInto, emptyMerge())
    expect(m.incidents.map((i) => i.detector)).toEqual(["a", "b"])
    expect(m.reminders.map((r) => r.text)).toEqual(["1", "2"])
  })

  test("a later exit replaces an earlier one; exitIfNone only fills a gap", () => {
    expect([{ exit: idle }, { exit: textLoop }].reduce(mergeInto, emptyMerge()).exit).toEqual(textLoop)
    expect([{ exit: textLoop }, { exitIfNone: circuit }].reduce(mergeInto, emptyMerge()).exit).toEqual(textLoop)
    expect([{}, { exitIfNone: circuit }].reduce(mergeInto, emptyMerge()).exit).toEqual(circuit)
  })

  test("a later pause replaces; pauseIfNone only fills a gap", () => {
    expect([{ pause: { a: 1 } }, { pauseIfNone: { b: 2 } }].reduce(mergeInto, emptyMerge()).pause).toEqual({ a: 1 })
    expect([{}, { pauseIfNone: { b: 2 } }].reduce(mergeInto, emptyMerge()).pause).toEqual({ b: 2 })
    expect([{ pause: { a: 1 } }, { pause: { b: 2 } }].reduce(mergeInto, emptyMerge()).pause).toEqual({ b: 2 })
  })

  test("a note of null is kept apart from no note at all", () => {
    expect(mergeInto(emptyMerge(), {}).note).toBeUndefined()
    expect(mergeInto(emptyMerge(), { note: null }).note).toBeNull()
  })

  test("nothing asked: no crop, no exit, no pause, no trip, no crop hand-off", () => {
    expect(mergeInto(emptyMerge(), {})).toEqual({ incidents: [], reminders: [], crop: null, cropped: false, exit: null, pause: null, breakerTrip: undefined, note: undefined })
  })
})
