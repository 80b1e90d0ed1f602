import { describe, expect, test } from "bun:test"
import type { ToolPart } from "../model/message.js"
import { TryBestLadder } from "./ladder.js"
import { TryBestMonitor } from "./monitor.js"
import { bashPart, editPart } from "./tool-part.fixture.js"

/** One part per step; the level of each verdict (null where none). */
const levels = (ladder: TryBestLadder, parts: ReadonlyArray<ToolPart>, from = 0) => parts.map((part, i) => ladder.judge({ part, step: from + i })?.level ?? null)

const failing = (command = "make build") => bashPart(command, 2, "make: *** [build] Error 2")

describe("TryBestLadder: a note first, a pause only when the loop goes on after it", () => {
  test("the same failing command: noted at the 3rd failure, paused at the 4th; the note is handed out once", () => {
    const ladder = new TryBestLadder(new TryBestMonitor())
    expect(levels(ladder, [failing(), failing(), failing(), failing()])).toEqual([null, null, "note", "pause"])
    const notes = ladder.takeNotes()
    expect(notes.map((n) => [n.kind, n.step])).toEqual([["bash_retry", 2]])
    expect(ladder.takeNotes()).toEqual([])
  })

  test("a success of the command settles it: the next three failures start with a note again", () => {
    const ladder = new TryBestLadder(new TryBestMonitor())
    const ok = bashPart("make build", 0, "built")
    expect(levels(ladder, [failing(), failing(), failing(), ok, failing(), failing(), failing(), failing()])).toEqual([null, null, "note", null, null, null, "note", "pause"])
  })

  test("evidence from the note's own step does not pause: the model has not seen the note yet", () => {
    const ladder = new TryBestLadder(new TryBestMonitor())
    const verdicts = [failing(), failing(), failing(), failing()].map((part, i) => ladder.judge({ part, step: i < 2 ? i : 2 })?.level ?? null)
    expect(verdicts).toEqual([null, null, "note", null])
    expect(ladder.judge({ part: failing(), step: 3 })?.level).toBe("pause")
  })

  test("near-identical edits and edit streaks are notes only, once per episode", () => {
    const repeats = new TryBestLadder(new TryBestMonitor({ failedCommandRetries: 1000, actionStreak: 1000 }))
    const same = () => editPart("src/a.ts", "x = compute(1, 2, 3)")
    expect(levels(repeats, [same(), same(), same(), same(), same(), same()])).toEqual([null, null, "note", null, null, null])
    expect(repeats.takeNotes().map((n) => n.kind)).toEqual(["edit_repeat"])
    const streak = new TryBestLadder(new TryBestMonitor({ failedCommandRetries: 1000 }))
    const files = Array.from({ length: 7 }, (_, i) => editPart(`src/f${i}.ts`, `change number ${i} of many`))
    expect(levels(streak, files)).toEqual([null, null, null, "note", null, null, null])
    expect(streak.takeNotes().map((n) => n.kind)).toEqual(["action_streak"])
  })

  test("off by default in the config (editMatches / actionStreak 0): many edits in a row are no report at all", () => {
    const ladder = new TryBestLadder(new TryBestMonitor({ editMatches: 0, actionStreak: 0 }))
    const edits = Array.from({ length: 12 }, (_, i) => editPart(`src/f${i % 3}.ts`, "x = compute(1, 2, 3)"))
    expect(levels(ladder, edits).every((l) => l === null)).toBe(true)
  })

  test("reset after a pause: the monitor and the ladder start from zero", () => {
    const ladder = new TryBestLadder(new TryBestMonitor())
    levels(ladder, [failing(), failing(), failing(), failing()])
    ladder.reset()
    expect(ladder.monitor.state.failures).toEqual({})
    expect(levels(ladder, [failing(), failing(), failing()], 10)).toEqual([null, null, "note"])
  })
})
