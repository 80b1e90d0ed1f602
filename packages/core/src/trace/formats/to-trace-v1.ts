/** Trace lines back to trace v1 text (docs/trace-format.md): what a converted log looks like to every other reader. */
import type { TraceLine } from "../types.js"

const record = (l: TraceLine): Record<string, unknown> => {
  const { line: _line, ...rest } = l
  if (rest.type !== "assistant") return rest
  const { step: _step, ...assistant } = rest
  return assistant
}

/** One JSON object per line, in order, without the positions (`line`, `step`) a reader adds. */
export const toTraceV1 = (lines: ReadonlyArray<TraceLine>): string => lines.map((l) => JSON.stringify(record(l))).join("\n") + (lines.length > 0 ? "\n" : "")
