/** The hand-written logs of one run (a test that keeps failing after an edit), in each format. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readTraceText, type ReadTrace } from "./read-text.js"
import type { TraceFormat } from "./reader.js"
import type { TraceAssistant, TraceLine, TraceToolResult } from "../types.js"

export const FIXTURES_DIR = join(import.meta.dir, "fixtures")

export const fixtureText = (name: string): string => readFileSync(join(FIXTURES_DIR, name), "utf8")

export const readFixture = (name: string, format?: TraceFormat): ReadTrace => readTraceText(fixtureText(name), name, format)

export const stepsOf = (lines: ReadonlyArray<TraceLine>): Array<TraceAssistant> => lines.filter((l): l is TraceAssistant => l.type === "assistant")
export const resultsOf = (lines: ReadonlyArray<TraceLine>): Array<TraceToolResult> => lines.filter((l): l is TraceToolResult => l.type === "tool-result")
