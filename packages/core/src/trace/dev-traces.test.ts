/**
 * The parser on the real development traces in ../shared/traces (read in place, never
 * copied). When the folder is absent the suite says so loudly and checks nothing.
 */
import { describe, expect, test } from "bun:test"
import type { ToolPart } from "../model/message.js"
import { parseTrace } from "./parse.js"
import { traceToSteps } from "./to-steps.js"
import { DEV_TRACES_DIR, devTraceTestName, devTracesPresent, loadLabels, readTrace } from "./dev-traces.fixture.js"

// Without the traces the suite is reported as skipped, never passed without running.
const present = devTracesPresent("trace-file checks")

const loadDevTraces = async (): Promise<Array<{ name: string; text: string }>> => {
  if ((await loadLabels("trace-file checks")) === null) throw new Error(`no labels.json in ${DEV_TRACES_DIR}`)
  const names = [...new Bun.Glob("*.jsonl").scanSync({ cwd: DEV_TRACES_DIR })].sort()
  return Promise.all(names.map(async (name) => ({ name, text: await readTrace(name) })))
}

describe("development traces", () => {
  test.skipIf(!present)(devTraceTestName("every file parses without errors and replays with every call answered", present), async () => {
    const files = await loadDevTraces()
    expect(files.length).toBeGreaterThan(0)
    for (const { name, text } of files) {
      const parsed = parseTrace(text, name)
      expect({ name, errors: parsed.errors }).toEqual({ name, errors: [] })
      expect(parsed.session).toBeDefined()

      const rawLines = text.split("\n").filter((l) => l.trim() !== "")
      expect(parsed.lines.length).toBe(rawLines.length)
      const rawAssistant = rawLines.filter((l) => (JSON.parse(l) as { type: string }).type === "assistant").length
      const r = traceToSteps(parsed.lines)
      expect(r.steps.map((s) => s.step)).toEqual(Array.from({ length: rawAssistant }, (_, i) => i))
      expect({ name, problems: r.problems }).toEqual({ name, problems: [] })

      // A tool part is in error exactly when its recorded result said so.
      for (const s of r.steps) {
        for (const p of s.reply.parts.filter((x): x is ToolPart => x.type === "tool")) {
          expect(p.state === "completed" || p.state === "error").toBe(true)
          const failed = (p.exitCode !== undefined && p.exitCode !== 0) || p.error !== undefined
          expect(p.state === "error").toBe(failed)
        }
      }
    }
  })
})
