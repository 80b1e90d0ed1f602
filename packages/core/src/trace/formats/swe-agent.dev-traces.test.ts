/**
 * The mini-SWE-agent runs among the development traces (../shared/traces, read in place, never
 * copied), written back into the trajectory file mini-SWE-agent saves (`{info, messages}`: each
 * reply as the model wrote it, each result as the user message that carried it) and read by the
 * SWE-agent reader: the same steps, the same calls and the same exit codes as the trace v1 form.
 */
import { describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { DEV_TRACES_DIR, devTraceTestName, devTracesPresent, readTrace } from "../dev-traces.fixture.js"
import type { TraceAssistant, TraceLine, TraceToolResult } from "../types.js"
import { readTraceText } from "./read-text.js"

const present = devTracesPresent("the mini-SWE-agent development traces as trajectory files")

/** The trace as mini-SWE-agent saves it: replies' text, results as user messages. */
const asTrajectory = (lines: ReadonlyArray<TraceLine>): string => {
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: "You are a helpful assistant that can interact with a computer." }]
  for (const l of lines) {
    if (l.type === "user") messages.push({ role: "user", content: l.text })
    else if (l.type === "assistant") messages.push({ role: "assistant", content: l.text ?? "" })
    else if (l.type === "tool-result") messages.push({ role: "user", content: l.output })
  }
  return JSON.stringify({ info: { exit_status: "Submitted", mini_version: "1.15.0" }, messages, trajectory_format: "mini-swe-agent-1" }, null, 2)
}

const callsOf = (lines: ReadonlyArray<TraceLine>) => lines.filter((l): l is TraceAssistant => l.type === "assistant").map((s) => s.toolCalls.map((c) => [c.name, c.input]))
const exitCodesOf = (lines: ReadonlyArray<TraceLine>) => lines.filter((l): l is TraceToolResult => l.type === "tool-result").map((r) => r.exitCode)

describe("the mini-SWE-agent development traces as trajectory files", () => {
  test.skipIf(!present)(devTraceTestName("read back with the same steps, calls and exit codes as their trace v1 form", present), async () => {
    const files = present ? readdirSync(DEV_TRACES_DIR).filter((f) => f.startsWith("minig3__")) : []
    expect(files.length).toBeGreaterThan(5)
    let steps = 0
    let same = 0
    for (const file of files) {
      const original = readTraceText(await readTrace(file), file)
      const read = readTraceText(asTrajectory(original.lines), `${file}.traj.json`)
      expect({ file, format: read.format, notes: read.notes.length }).toEqual({ file, format: "swe-agent", notes: 0 })
      const [want, got] = [callsOf(original.lines), callsOf(read.lines)]
      expect({ file, steps: got.length }).toEqual({ file, steps: want.length })
      steps += want.length
      same += want.filter((calls, i) => Bun.deepEquals(calls, got[i])).length
      // Where the call was read back, its result carries the exit code the trace recorded.
      if (Bun.deepEquals(want, got)) expect({ file, codes: exitCodesOf(read.lines) }).toEqual({ file, codes: exitCodesOf(original.lines) })
    }
    console.log(`the mini-SWE-agent development traces as trajectory files: the same calls read back in ${same} of ${steps} steps`)
    expect(same / steps).toBeGreaterThan(0.95)
  }, 30_000)
})
