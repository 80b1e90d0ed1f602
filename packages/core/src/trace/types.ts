/**
 * Trace format v1 (docs/trace-format.md): one JSON object per line. These are the validated
 * lines; every line keeps its 1-based line number so later findings can name file:line.
 */
import type { FinishReason, Usage } from "../model/stream.js"

/** Finish reasons a trace may record (a trace without one simply omits the field). */
export type TraceFinish = Exclude<FinishReason, "unknown">

export const TRACE_FINISHES: ReadonlyArray<TraceFinish> = ["stop", "length", "tool-calls", "content-filter", "error", "other"]

export const TRACE_LINE_TYPES = ["session", "user", "assistant", "tool-result"] as const
export type TraceLineType = (typeof TRACE_LINE_TYPES)[number]

export interface TraceSession {
  readonly type: "session"
  readonly line: number
  readonly id?: string
  readonly model?: string
  readonly agent?: string
}

export interface TraceUser {
  readonly type: "user"
  readonly line: number
  readonly text: string
}

export interface TraceToolCall {
  readonly id: string
  readonly name: string
  /** Any JSON value; `{}` when the line omits it. */
  readonly input: unknown
}

export interface TraceError {
  readonly message: string
  readonly name?: string
  readonly code?: string
  readonly status?: number
}

export interface TraceAssistant {
  readonly type: "assistant"
  readonly line: number
  /** 0-based position among the file's assistant lines (a bad assistant line still takes its number). */
  readonly step: number
  readonly reasoning?: string
  readonly text?: string
  readonly toolCalls: ReadonlyArray<TraceToolCall>
  readonly finish?: TraceFinish
  readonly error?: TraceError
  readonly usage?: Usage
}

export interface TraceToolResult {
  readonly type: "tool-result"
  readonly line: number
  readonly id: string
  readonly name?: string
  readonly output: string
  readonly exitCode?: number
  readonly error?: boolean
  readonly path?: string
  readonly diff?: string
}

export type TraceLine = TraceSession | TraceUser | TraceAssistant | TraceToolResult

export interface TraceProblem {
  readonly file: string
  /** 1-based line number in the file. */
  readonly line: number
  readonly message: string
}

export interface ParsedTrace {
  readonly file: string
  readonly session?: TraceSession
  /** The valid lines, in file order (the session line included). */
  readonly lines: ReadonlyArray<TraceLine>
  /** One entry per problem; a line with any problem is left out of `lines`. */
  readonly errors: ReadonlyArray<TraceProblem>
}

/** `file:line: message`, the form the CLI prints. */
export const formatTraceProblem = (p: TraceProblem): string => `${p.file}:${p.line}: ${p.message}`
