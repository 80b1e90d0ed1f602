/**
 * A trace reader turns one agent's log, line by line, into trace v1 lines (types.ts): the same
 * records the trace v1 parser gives, so the audit, the replay and the page read every format the
 * same way. Readers never throw; what they cannot map becomes a note naming file:line and why,
 * and reading goes on.
 */
import type { LineCut } from "../parse.js"
import type { TraceLine, TraceProblem } from "../types.js"

/** What reading one line (or the end of the file) gave. */
export interface ReadOut {
  readonly lines: ReadonlyArray<TraceLine>
  /** Problems that make the file fail (trace v1 only: its lines are a contract). */
  readonly errors: ReadonlyArray<TraceProblem>
  /** Findings that do not fail the file: a cut line, a record a reader could not map. */
  readonly notes: ReadonlyArray<TraceProblem>
}

export interface TraceReader {
  /** Reads the line numbered `lineNo` (1-based), or the kept beginning of a `cut` one. */
  push(raw: string, lineNo: number, cut?: LineCut): ReadOut
  /** The end of the file: whatever the reader still held. */
  end(): ReadOut
}

export const EMPTY_OUT: ReadOut = { lines: [], errors: [], notes: [] }

/** The formats `audit --format` names; `trace` is trace v1. */
export const TRACE_FORMATS = ["trace", "claude-code", "codex", "opencode", "gemini", "qwen-code", "pi", "swe-agent"] as const
export type TraceFormat = (typeof TRACE_FORMATS)[number]

/** Whether a string names one of TRACE_FORMATS (a `--format` value). */
export const isTraceFormat = (s: string): s is TraceFormat => (TRACE_FORMATS as ReadonlyArray<string>).includes(s)
