/**
 * The cross-step detectors replayed causally (step by step, in shadow mode) over the labelled
 * development traces in ../shared/traces, compared with labels.json. Read in place, never
 * copied. Set LOOPGUARD_TRACE_REPORT=1 to print the per-episode table.
 */
import { describe, expect, test } from "bun:test"
import { devTraceTestName, devTracesPresent, loadLabels, readTrace } from "../trace/dev-traces.fixture.js"
import type { CropMarker, Message, UserMessage } from "../model/message.js"
import { parseTrace } from "../trace/parse.js"
import { traceToSteps } from "../trace/to-steps.js"
import { doomLoop } from "./doom-loop.js"
import { repeatedAction } from "./repeated-action.js"
import { DEFAULT_LOOP_STREAK, detectStreak } from "./streak.js"
import { TextLoopDetector } from "./text-loop.js"

// Without the traces the suite is reported as skipped, never passed without running.
const present = devTracesPresent("detector evaluation")

const DETECTORS = ["text-loop", "repeated-action", "doom-loop", "streak-crop"] as const
type Detector = (typeof DETECTORS)[number]


/** Alarm steps per detector, computed the way a live RunLoop would see the run. */
const replayAlarms = (text: string, file: string): Record<Detector, Array<number>> => {
  const replay = traceToSteps(parseTrace(text, file).lines)
  const alarms: Record<Detector, Array<number>> = { "text-loop": [], "repeated-action": [], "doom-loop": [], "streak-crop": [] }
  let textLoop = TextLoopDetector.init()
  let history: Array<Message> = []
  for (const s of replay.steps) {
    history = [...history, ...s.users, s.reply]
    const t = TextLoopDetector.consume(textLoop, s.reply, { cropped: false })
    textLoop = t.state
    if (t.trigger !== null) alarms["text-loop"].push(s.step)
    if (repeatedAction(history) !== null) alarms["repeated-action"].push(s.step)
    if (doomLoop(s.reply) !== null) alarms["doom-loop"].push(s.step)
    const streak = detectStreak(history, { ...DEFAULT_LOOP_STREAK, enabled: true })
    if (streak !== null) {
      alarms["streak-crop"].push(s.step)
      history = persist(history, streak.persistOn, streak.marker)
    }
  }
  return alarms
}

const persist = (history: Array<Message>, on: string | null, marker: CropMarker): Array<Message> =>
  history.map((m) => (m.id === on && m.role === "user" ? ({ ...m, crops: [...(m.crops ?? []), marker] } satisfies UserMessage) : m))

const within = (steps: ReadonlyArray<number>, from: number, to: number) => steps.find((x) => x >= from && x <= to)

describe("cross-step detectors on the labelled development traces", () => {
  test.skipIf(!present)(devTraceTestName("repeated-action and text-loop catch what their label rules define; report the rest", present), async () => {
    const labels = (await loadLabels("detector evaluation"))!
    const rows: Array<string> = []
    const falseAlarms: Record<Detector, number> = { "text-loop": 0, "repeated-action": 0, "doom-loop": 0, "streak-crop": 0 }
    const caught: Record<Detector, number> = { "text-loop": 0, "repeated-action": 0, "doom-loop": 0, "streak-crop": 0 }
    let episodes = 0

    for (const [file, label] of Object.entries(labels.files)) {
      const alarms = replayAlarms(await readTrace(file), file)

      // Same-action-3-in-a-row and identical-output-3-in-a-row are these detectors' own rules:
      // each such segment must raise an alarm no later than its end.
      for (const seg of label.segments) {
        if (seg.kind === "repeated_action") {
          expect({ file, seg, at: within(alarms["repeated-action"], seg.fires_at, seg.end_step) }).not.toMatchObject({ at: undefined })
        }
        if (seg.kind === "repeated_text") {
          expect({ file, seg, at: within(alarms["text-loop"], seg.start_step, seg.end_step) }).not.toMatchObject({ at: undefined })
        }
      }

      for (const d of DETECTORS) {
        falseAlarms[d] += alarms[d].filter((x) => !label.episodes.some((e) => x >= e.start_step && x <= e.end_step)).length
      }
      for (const e of label.episodes) {
        episodes++
        const cells = DETECTORS.map((d) => {
          const at = within(alarms[d], e.start_step, e.end_step)
          if (at !== undefined) caught[d]++
          return at === undefined ? "miss" : `@${at} (+${at - e.onset_step})`
        })
        rows.push(`${file.replace(/\.jsonl$/, "")} [${e.start_step}-${e.end_step}] ${e.kinds.join(",")}\n    ${DETECTORS.map((d, i) => `${d}: ${cells[i]}`).join(" | ")}`)
      }
    }

    // doom-loop looks inside one message; every recorded step here holds at most one call.
    expect(caught["doom-loop"]).toBe(0)

    if (Bun.env["LOOPGUARD_TRACE_REPORT"] === "1") {
      console.log(
        [
          `\nEpisodes: ${episodes}. Caught: ${DETECTORS.map((d) => `${d} ${caught[d]}`).join(", ")}`,
          `Alarm steps outside every episode: ${DETECTORS.map((d) => `${d} ${falseAlarms[d]}`).join(", ")}`,
          ...rows
        ].join("\n")
      )
    }
  })
})
