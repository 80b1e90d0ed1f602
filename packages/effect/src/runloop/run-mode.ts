/**
 * What a run does with what it sees, decided once from its mode: enforcing, or replaying in shadow
 * (audit) mode, where every detector runs and nothing the run does changes the session, the request
 * or the run's course. This is the one place that says what shadow mode changes; the stages read
 * these settings, never the mode, and the interpreter reads `enforce` for policy outcomes.
 */
import type { RunInput } from "./run-types.js"

export interface RunMode {
  /** Policy outcomes act (false: each is filed as what would have happened, and the replay goes on). */
  readonly enforce: boolean
  /** Reminders and notes go into the request, and a step at a cap is sent without tools. */
  readonly shapesRequests: boolean
  /** Compaction may rewrite the history. */
  readonly compacts: boolean
  /** The wall-clock limit (`loop.maxWallMs`) runs. */
  readonly wallClock: boolean
  /** A run first repairs what an interrupted one left and acts on its last reply. */
  readonly resumes: boolean
  /** The `task` tool is offered (sub-agents) and a failed run may be retried with a summary. */
  readonly startsRuns: boolean
  /** Tool calls written as text: handled as `textToolCalls.mode` says, or only reported. */
  readonly textToolCalls: "as-configured" | "report"
  /** Detectors only detect: they warn and file, and ask for nothing to be done. */
  readonly detectOnly: boolean
}

const ENFORCING: RunMode = {
  enforce: true,
  shapesRequests: true,
  compacts: true,
  wallClock: true,
  resumes: true,
  startsRuns: true,
  textToolCalls: "as-configured",
  detectOnly: false
}

const REPLAYING: RunMode = {
  enforce: false,
  shapesRequests: false,
  compacts: false,
  wallClock: false,
  resumes: false,
  startsRuns: false,
  textToolCalls: "report",
  detectOnly: true
}

export const runModeOf = (input: Pick<RunInput, "shadow">): RunMode => (input.shadow === true ? REPLAYING : ENFORCING)
