/**
 * The development traces (../shared/traces, read in place, never copied) as their harnesses send
 * them: every one of them (mini-SWE-agent, SWE-agent 0.x and 1.x) offers the model no tools, runs
 * the action written in the reply and sends what it printed back as a user message. Each run is
 * put back into that form (the calls taken out of the replies, each result a user message wrapped
 * as its harness wraps it) and
 * judged request by request as the proxy judges it, with `proxy.textActions` (the default) and
 * without. With it, the actions are read back out of the replies' text; a run the labels call
 * healthy is never stopped; a stopped run is stopped at or after the start of a labelled loop.
 * Without it, each step is a user turn of its own and no run is stopped.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { importTrace } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { devTraceTestName, devTracesPresent, loadLabels, readTrace } from "../../core/src/trace/dev-traces.fixture.js"
import { firstStop } from "./dev-traces.fixture.js"
import { withTextActions } from "./text-actions.js"

const present = devTracesPresent("the development traces in their harnesses' text form")

/**
 * How each harness wraps an action's output in the user message it sends (its default template):
 * SWE-agent 1.x (the `swalm32b` runs) under an "OBSERVATION:" head, SWE-agent 0.x (`msbjava`)
 * followed by its open file, directory and shell prompt; mini-SWE-agent's `<returncode>` is already
 * in the output its runs recorded.
 */
const wrapperOf = (file: string): ((output: string) => string) =>
  file.startsWith("swalm32b__") ? (o) => `OBSERVATION:\n${o}` : file.startsWith("msbjava__") ? (o) => `${o}\n(Open file: n/a)\n(Current directory: /repo)\nbash-$` : (o) => o

/** A run as its text-protocol harness sends it: replies without calls, each call's result a user message; ids by wire position. */
const asSent = (messages: ReadonlyArray<Message>, wrap: (output: string) => string): Array<Message> => {
  const out: Array<Message> = []
  const at = () => `m${out.length}`
  for (const m of messages) {
    if (m.role === "user") {
      out.push({ ...m, id: at() })
      continue
    }
    const calls = m.parts.filter((p) => p.type === "tool")
    out.push({ ...m, id: at(), parts: m.parts.filter((p) => p.type !== "tool"), finish: "stop" } as AssistantMessage)
    if (calls.length > 0) out.push({ role: "user", id: at(), text: wrap(calls.map((c) => c.output ?? c.error ?? "").join("\n")) })
  }
  return out
}

type Label = { readonly episodes: ReadonlyArray<{ readonly start_step: number }> }

describe("the development traces in their harnesses' text form", () => {
  test.skipIf(!present)(
    devTraceTestName("with proxy.textActions the steps are one turn: no healthy run stopped, a stopped run stopped within a labelled loop; without it, none stopped", present),
    async () => {
      const labels = await loadLabels("the development traces in their harnesses' text form")
      const files = Object.entries(labels!.files) as Array<[string, Label]>
      expect(files.length).toBeGreaterThan(40)
      let stopped = 0
      let steps = 0
      let read = 0
      for (const [file, label] of files) {
        const imported = importTrace(await readTrace(file), file)
        if (!imported.ok) throw new Error(`${file} did not import`)
        const sent = asSent(imported.messages, wrapperOf(file))
        const folded = withTextActions(sent)
        steps += imported.messages.filter((m) => m.role === "assistant").length
        read += folded.filter((m) => m.role === "assistant" && m.parts.some((p) => p.type === "tool")).length
        expect({ file, off: firstStop(sent, file).stoppedAfter }).toEqual({ file, off: null })
        const { stoppedAfter } = firstStop(sent, file, withTextActions)
        if (label.episodes.length === 0) expect({ file, stoppedAfter }).toEqual({ file, stoppedAfter: null })
        else if (stoppedAfter !== null) {
          stopped += 1
          expect({ file, early: stoppedAfter < Math.min(...label.episodes.map((e) => e.start_step)) }).toEqual({ file, early: false })
        }
      }
      // Printed, not tuned against: how many actions were read back, and how many labelled loops are stopped.
      console.log(`the development traces in their harnesses' text form: actions read back in ${read} of ${steps} steps; ${stopped} runs with a labelled loop stopped`)
      expect(read / steps).toBeGreaterThan(0.9)
      expect(stopped).toBeGreaterThan(0)
    },
    60_000
  )
})
