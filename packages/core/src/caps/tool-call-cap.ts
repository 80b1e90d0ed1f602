/**
 * Per-tool call caps: a tool may run at most N times in one run (a default for every tool, and
 * per-tool numbers). A call past the cap is not run; the model gets the refusal as the result, so
 * it can change approach instead of the run ending.
 */

export interface ToolCallCaps {
  /** Every tool's cap; null = none. */
  readonly maxCallsPerTool: number | null
  /** Per tool name; wins over the default. */
  readonly perTool: Readonly<Record<string, number>>
}

export type ToolCallCounts = Readonly<Record<string, number>>

/** A tool's cap: its own, else the default; null = none. */
export const capFor = (tool: string, caps: ToolCallCaps): number | null => caps.perTool[tool] ?? caps.maxCallsPerTool

/** Admits one call: counted when admitted; a refusal text when the tool is at its cap. */
export const admitToolCall = (counts: ToolCallCounts, tool: string, caps: ToolCallCaps): { readonly counts: ToolCallCounts; readonly refusal: string | null } => {
  const cap = capFor(tool, caps)
  const used = counts[tool] ?? 0
  if (cap !== null && used >= cap) {
    return { counts, refusal: `not run: ${tool} reached its cap of ${cap} call${cap === 1 ? "" : "s"} in this run; use another approach or finish with what you have` }
  }
  return { counts: { ...counts, [tool]: used + 1 }, refusal: null }
}
