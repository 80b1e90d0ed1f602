/**
 * parseTrace: trace format v1 text → validated lines + per-line problems. Never throws: a bad
 * line becomes an error naming its 1-based line number and is left out; the rest still parse.
 */
import { closeCutJson } from "./close-cut-json.js"
import type { Usage } from "../model/stream.js"
import { defined, FieldReader, isJsonObject, kindOf, type JsonObject } from "./fields.js"
import {
  TRACE_FINISHES,
  TRACE_LINE_TYPES,
  type ParsedTrace,
  type TraceAssistant,
  type TraceError,
  type TraceLine,
  type TraceLineType,
  type TraceProblem,
  type TraceSession,
  type TraceToolCall,
  type TraceToolResult,
  type TraceUser
} from "./types.js"

type LineResult = { readonly line: TraceLine; readonly problems: readonly [] } | { readonly problems: ReadonlyArray<string> }

const ok = (line: TraceLine): LineResult => ({ line, problems: [] })

const USAGE_FIELDS = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"] as const

const readUsage = (obj: JsonObject, problems: Array<string>): Usage => {
  const r = new FieldReader(obj, "usage")
  const usage: Record<string, number> = {}
  for (const f of USAGE_FIELDS) {
    const v = r.optionalNumber(f)
    if (v !== undefined) usage[f] = v
  }
  problems.push(...r.problems)
  return usage as Usage
}

const readError = (r: FieldReader, problems: Array<string>): TraceError | undefined => {
  const v = r.obj["error"]
  if (v === undefined || v === null) return undefined
  if (typeof v === "string") return { message: v }
  if (!isJsonObject(v)) {
    problems.push(`field "error" must be a string or an object, got ${kindOf(v)}`)
    return undefined
  }
  const e = new FieldReader(v, "error")
  const message = e.requiredString("message")
  const out = defined<TraceError>({
    message: message ?? "",
    name: e.optionalString("name"),
    code: e.optionalString("code"),
    status: e.optionalInteger("status")
  })
  problems.push(...e.problems)
  return out
}

const readToolCalls = (r: FieldReader, problems: Array<string>): ReadonlyArray<TraceToolCall> => {
  const raw = r.optionalArray("toolCalls") ?? []
  const calls: Array<TraceToolCall> = []
  raw.forEach((item, i) => {
    if (!isJsonObject(item)) {
      problems.push(`field "toolCalls[${i}]" must be an object, got ${kindOf(item)}`)
      return
    }
    const c = new FieldReader(item, `toolCalls[${i}]`)
    const id = c.requiredString("id")
    const name = c.requiredString("name")
    problems.push(...c.problems)
    if (id !== undefined && name !== undefined) calls.push({ id, name, input: item["input"] ?? {} })
  })
  return calls
}

const parseSession = (o: JsonObject, line: number): LineResult => {
  const r = new FieldReader(o)
  const s = defined<TraceSession>({
    type: "session",
    line,
    id: r.optionalString("id"),
    model: r.optionalString("model"),
    agent: r.optionalString("agent")
  })
  return r.problems.length > 0 ? { problems: r.problems } : ok(s)
}

const parseUser = (o: JsonObject, line: number): LineResult => {
  const r = new FieldReader(o)
  const text = r.requiredString("text")
  return text === undefined || r.problems.length > 0 ? { problems: r.problems } : ok({ type: "user", line, text } satisfies TraceUser)
}

const parseAssistant = (o: JsonObject, line: number, step: number): LineResult => {
  const r = new FieldReader(o)
  const problems: Array<string> = []
  const usageObj = r.optionalObject("usage")
  const a = defined<TraceAssistant>({
    type: "assistant",
    line,
    step,
    reasoning: r.optionalString("reasoning"),
    text: r.optionalString("text"),
    toolCalls: readToolCalls(r, problems),
    finish: r.optionalLiteral("finish", TRACE_FINISHES),
    error: readError(r, problems),
    usage: usageObj === undefined ? undefined : readUsage(usageObj, problems)
  })
  problems.push(...r.problems)
  return problems.length > 0 ? { problems } : ok(a)
}

const parseToolResult = (o: JsonObject, line: number): LineResult => {
  const r = new FieldReader(o)
  const id = r.requiredString("id")
  const t = defined<TraceToolResult>({
    type: "tool-result",
    line,
    id: id ?? "",
    name: r.optionalString("name"),
    output: r.optionalString("output") ?? "",
    exitCode: r.optionalInteger("exitCode"),
    error: r.optionalBoolean("error"),
    path: r.optionalString("path"),
    diff: r.optionalString("diff")
  })
  return r.problems.length > 0 ? { problems: r.problems } : ok(t)
}

/** Best effort for lines that are not valid JSON: does it look like an assistant line? */
const looksLikeAssistant = (raw: string): boolean => /"type"\s*:\s*"assistant"/.test(raw)

/** What one line gave: the validated record, or its problems (none for a blank line). */
export interface ParsedLine {
  readonly line?: TraceLine
  readonly errors: ReadonlyArray<TraceProblem>
  /** Findings that are not errors: a line cut at the reader's limit. */
  readonly notes?: ReadonlyArray<TraceProblem>
}

/** A line the reader cut: `text` is its first `keptBytes` of `bytes`. */
export interface LineCut {
  readonly bytes: number
  readonly keptBytes: number
}

const BLANK: ParsedLine = { errors: [] }

/**
 * The JSON value of a line cut short (its first bytes only): closing its open string, arrays and
 * objects keeps the fields before the cut (a huge `output` survives as its beginning). Throws
 * like `JSON.parse` when even that does not parse.
 */
export const parseCutJson = (prefix: string): unknown => JSON.parse(closeCutJson(prefix))

export const cutNote = (cut: LineCut): string =>
  `line of ${cut.bytes} bytes is longer than input.maxLineBytes: only its first ${cut.keptBytes} bytes were read, so the fields after that point are missing and the last one kept is cut short`

/**
 * Trace v1 one line at a time, for readers that stream a file: the state carried between lines
 * is the step counter and whether content has started (a "session" line may only come first).
 */
export class TraceLineParser {
  private step = 0
  private sawContent = false

  constructor(readonly file: string = "<trace>") {}

  /** Parses the line numbered `lineNo` (1-based), or the kept beginning of a `cut` one; never throws. */
  push(rawRow: string, lineNo: number, cut?: LineCut): ParsedLine {
    const raw = lineNo === 1 ? rawRow.replace(/^\uFEFF/, "") : rawRow
    if (raw.trim() === "" && cut === undefined) return BLANK
    const first = !this.sawContent
    this.sawContent = true
    const problem = (message: string): TraceProblem => ({ file: this.file, line: lineNo, message })
    const notes = cut === undefined ? undefined : [problem(cutNote(cut))]
    const fail = (...messages: ReadonlyArray<string>): ParsedLine => ({ errors: messages.map(problem), ...(notes ? { notes } : {}) })

    let value: unknown
    try {
      value = cut === undefined ? JSON.parse(raw) : parseCutJson(raw)
    } catch (e) {
      if (looksLikeAssistant(raw)) this.step++
      return fail(`bad JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    if (!isJsonObject(value)) return fail(`expected a JSON object, got ${kindOf(value)}`)
    const type = value["type"]
    if (type === undefined || type === null) return fail(`missing field "type"`)
    if (typeof type !== "string") return fail(`field "type" must be a string, got ${kindOf(type)}`)
    if (!(TRACE_LINE_TYPES as ReadonlyArray<string>).includes(type)) {
      return fail(`unknown type "${type}" (expected ${TRACE_LINE_TYPES.join(", ")})`)
    }
    const result = this.record(type as TraceLineType, value, lineNo, first)
    if (!("line" in result)) return fail(...result.problems)
    return notes ? { line: result.line, errors: [], notes } : { line: result.line, errors: [] }
  }

  private record(type: TraceLineType, value: JsonObject, lineNo: number, first: boolean): LineResult {
    switch (type) {
      case "session":
        return first ? parseSession(value, lineNo) : { problems: [`a "session" line may only be the first line`] }
      case "user":
        return parseUser(value, lineNo)
      case "assistant":
        return parseAssistant(value, lineNo, this.step++)
      case "tool-result":
        return parseToolResult(value, lineNo)
    }
  }
}

/** Parses trace v1 JSON Lines; never throws: valid lines plus one `file:line` problem per bad line. */
export const parseTrace = (text: string, file: string = "<trace>"): ParsedTrace => {
  const lines: Array<TraceLine> = []
  const errors: Array<TraceProblem> = []
  let session: TraceSession | undefined
  const parser = new TraceLineParser(file)
  text.split(/\r?\n/).forEach((row, i) => {
    const parsed = parser.push(row, i + 1)
    errors.push(...parsed.errors)
    if (parsed.line === undefined) return
    if (parsed.line.type === "session") session = parsed.line
    lines.push(parsed.line)
  })
  return session === undefined ? { file, lines, errors } : { file, session, lines, errors }
}
