/**
 * The development traces (../shared/traces, read in place, never copied) as if each agent had run
 * behind the proxy: every request of a run judged as the proxy judges it, one after another through
 * a process's memo. A run the labels call healthy is never stopped (a false stop costs a user's
 * run); a run that is stopped is stopped at or after the start of a labelled loop; and the memo's
 * verdicts are a fresh judge's (checked at every 5th request).
 */
import { importTrace } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { devTraceTestName, devTracesPresent, loadLabels, readTrace } from "../../core/src/trace/dev-traces.fixture.js"
import { firstStop } from "./dev-traces.fixture.js"

const present = devTracesPresent("the development traces through the proxy's judge")

describe("the development traces through the proxy's judge", () => {
  test.skipIf(!present)(
    devTraceTestName("no healthy run is stopped; a stopped run is stopped within a labelled loop; the memo agrees with a fresh judge", present),
    async () => {
      const labels = await loadLabels("the development traces through the proxy's judge")
      const files = Object.entries(labels!.files) as Array<[string, { readonly n_steps: number; readonly episodes: ReadonlyArray<{ readonly start_step: number }>; readonly stuck?: boolean }]>
      expect(files.length).toBeGreaterThan(40)
      let stopped = 0
      for (const [file, label] of files) {
        const imported = importTrace(await readTrace(file), file)
        expect({ file, ok: imported.ok }).toEqual({ file, ok: true })
        if (!imported.ok) continue
        const { stoppedAfter } = firstStop(imported.messages, file)
        if (label.episodes.length === 0) expect({ file, stoppedAfter }).toEqual({ file, stoppedAfter: null })
        else if (stoppedAfter !== null) {
          stopped += 1
          expect({ file, early: stoppedAfter < Math.min(...label.episodes.map((e) => e.start_step)) }).toEqual({ file, early: false })
        }
      }
      // Some labelled loops are stopped at all (the count is printed, not tuned against).
      console.log(`the development traces through the proxy's judge: ${stopped} runs with a labelled loop stopped`)
      expect(stopped).toBeGreaterThan(0)
    },
    60_000
  )
})
