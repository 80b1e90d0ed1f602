/**
 * parseTrace: trace format v1 text → validated lines + per-line problems. Never throws: a bad
 * line becomes an error naming its 1-based line number and is left out; the rest still parse.
 */
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

/** Parses trace v1 JSON Lines; never throws: valid lines plus one `file:line` problem per bad line. */
export const parseTrace = (text: string, file: string = "<trace>"): ParsedTrace => {
  const lines: Array<TraceLine> = []
  const errors: Array<TraceProblem> = []
  let session: TraceSession | undefined
  let step = 0
  let sawContent = false

  const rows = text.split(/\r?\n/)
  rows.forEach((rawRow, i) => {
    const lineNo = i + 1
    const raw = i === 0 ? rawRow.replace(/^\uFEFF/, "") : rawRow
    if (raw.trim() === "") return
    const first = !sawContent
    sawContent = true
    const fail = (message: string): void => void errors.push({ file, line: lineNo, message })

    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (e) {
      if (looksLikeAssistant(raw)) step++
      return fail(`bad JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    if (!isJsonObject(value)) return fail(`expected a JSON object, got ${kindOf(value)}`)
    const type = value["type"]
    if (type === undefined || type === null) return fail(`missing field "type"`)
    if (typeof type !== "string") return fail(`field "type" must be a string, got ${kindOf(type)}`)
    if (!(TRACE_LINE_TYPES as ReadonlyArray<string>).includes(type)) {
      return fail(`unknown type "${type}" (expected ${TRACE_LINE_TYPES.join(", ")})`)
    }

    let result: LineResult
    switch (type as TraceLineType) {
      case "session":
        if (!first) return fail(`a "session" line may only be the first line`)
        result = parseSession(value, lineNo)
        break
      case "user":
        result = parseUser(value, lineNo)
        break
      case "assistant":
        result = parseAssistant(value, lineNo, step++)
        break
      case "tool-result":
        result = parseToolResult(value, lineNo)
        break
    }
    if (!("line" in result)) return result.problems.forEach(fail)
    if (result.line.type === "session") session = result.line
    lines.push(result.line)
  })

  return session === undefined ? { file, lines, errors } : { file, session, lines, errors }
}
