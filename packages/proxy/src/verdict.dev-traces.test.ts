/**
 * The development traces (../shared/traces, read in place, never copied) as if each agent had run
 * behind the proxy: every request of a run judged as the proxy judges it, one after another through
 * a process's memo. A run the labels call healthy is never stopped (a false stop costs a user's
 * run); a run that is stopped is stopped at or after the start of a labelled loop; and the memo's
 * verdicts are a fresh judge's (checked at every 5th request).
 */
import type { Message } from "@loopguard/core/model"
import { importTrace } from "@loopguard/effect/store"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { describe, expect, test } from "bun:test"
import { devTraceTestName, devTracesPresent, loadLabels, readTrace } from "../../core/src/trace/dev-traces.fixture.js"
import { settingsOf } from "./server.js"
import { TurnMemo } from "./turn-judge.js"
import { judgeRequest } from "./verdict.js"

const present = devTracesPresent("the development traces through the proxy's judge")

/** The index of the first request stopped, counted in assistant steps before it, or null. */
const firstStop = (messages: ReadonlyArray<Message>, session: string): { readonly stoppedAfter: number | null; readonly requests: number } => {
  const config = settingsOf(DEFAULT_CONFIG).verdict
  const memo = { memo: new TurnMemo(), session }
  let step = -1
  let requests = 0
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== "assistant") continue
    step += 1
    // The request that asks for the step after this one: this reply and the results that answer it.
    let end = i + 1
    while (end < messages.length && messages[end]!.role !== "assistant") end++
    const history = messages.slice(0, end)
    const verdict = judgeRequest(history, config, memo)
    requests += 1
    if (requests % 5 === 0) expect(verdict).toEqual(judgeRequest(history, config))
    if (verdict.action === "stop") return { stoppedAfter: step, requests }
  }
  return { stoppedAfter: null, requests }
}

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
