/** The reader of a format, and a whole text read through it (tests, `sessions import`). */
import { claudeCodeReader } from "./claude-code.js"
import { codexReader } from "./codex.js"
import { detectFormat, detectionHead } from "./detect.js"
import { geminiReader } from "./gemini.js"
import { openCodeReader } from "./opencode.js"
import { piReader } from "./pi.js"
import { qwenCodeReader } from "./qwen-code.js"
import { sweAgentReader } from "./swe-agent.js"
import type { ReadOut, TraceFormat, TraceReader } from "./reader.js"
import { traceV1Reader } from "./trace-v1.js"
import type { ParsedTrace, TraceLine, TraceProblem, TraceSession } from "../types.js"

/** The reader of `format`, naming `file` in its notes and errors. */
export const readerFor = (format: TraceFormat, file: string): TraceReader => {
  switch (format) {
    case "trace":
      return traceV1Reader(file)
    case "claude-code":
      return claudeCodeReader(file)
    case "codex":
      return codexReader(file)
    case "opencode":
      return openCodeReader(file)
    case "gemini":
      return geminiReader(file)
    case "qwen-code":
      return qwenCodeReader(file)
    case "pi":
      return piReader(file)
    case "swe-agent":
      return sweAgentReader(file)
  }
}

export interface ReadTrace extends ParsedTrace {
  readonly format: TraceFormat
  /** What the reader could not map (foreign formats) and lines it cut: never a failure. */
  readonly notes: ReadonlyArray<TraceProblem>
}

/** Reads a whole text in `format` (default: detected from the text); never throws. */
export const readTraceText = (text: string, file: string = "<trace>", format?: TraceFormat): ReadTrace => {
  const f = format ?? detectFormat(detectionHead(text))
  const reader = readerFor(f, file)
  const lines: Array<TraceLine> = []
  const errors: Array<TraceProblem> = []
  const notes: Array<TraceProblem> = []
  const add = (o: ReadOut): void => {
    lines.push(...o.lines)
    errors.push(...o.errors)
    notes.push(...o.notes)
  }
  text.split(/\r?\n/).forEach((row, i) => add(reader.push(row, i + 1)))
  add(reader.end())
  const session = lines.find((l): l is TraceSession => l.type === "session")
  const base = { file, format: f, lines, errors, notes }
  return session === undefined ? base : { ...base, session }
}
