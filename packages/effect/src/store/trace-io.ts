/**
 * A stored session to and from trace v1 (docs/trace-format.md), the export/import format: the
 * standard fields let `audit` read any exported session; each user and assistant line also
 * carries the stored message whole under `"stored"` (unknown fields are ignored by readers), so
 * an import gives back exactly what was kept — ids, exclusions, crops, interrupted calls.
 */
import { reasoningOf, textOf, toolPartsOf, type AssistantMessage, type Message } from "@loopguard/core/model"
import { detectFormat, formatTraceProblem, parseTrace, readTraceText, traceToSteps, type TraceFormat } from "@loopguard/core/trace"
import { parseMessageBody } from "./message-schema.js"

/**
 * The text of a reply that is loopguard's own answer and nothing else (the proxy's stop, which the
 * agent got as the assistant's turn): written as the line's text, so a reader sees the turn the
 * agent saw, not an empty reply. "" for any other reply.
 */
const ownAnswerText = (m: AssistantMessage): string =>
  m.excluded === undefined && m.parts.length > 0 && m.parts.every((p) => p.type === "text" && p.synthetic === true)
    ? m.parts.map((p) => (p.type === "text" ? p.text : "")).join("")
    : ""

const assistantLines = (m: AssistantMessage): ReadonlyArray<Record<string, unknown>> => {
  const calls = toolPartsOf(m)
  const reasoning = reasoningOf(m)
  const text = textOf(m) || ownAnswerText(m)
  const line: Record<string, unknown> = {
    type: "assistant",
    ...(reasoning !== "" ? { reasoning } : {}),
    ...(text !== "" ? { text } : {}),
    ...(calls.length > 0 ? { toolCalls: calls.map((p) => ({ id: p.callId, name: p.name, input: p.input ?? {} })) } : {}),
    ...(m.finish !== undefined && m.finish !== "unknown" ? { finish: m.finish } : {}),
    ...(m.error !== undefined ? { error: { message: m.error.message, ...(m.error.name !== undefined ? { name: m.error.name } : {}), ...(m.error.code !== undefined ? { code: m.error.code } : {}), ...(m.error.status !== undefined ? { status: m.error.status } : {}) } } : {}),
    ...(m.usage !== undefined ? { usage: m.usage } : {}),
    stored: m
  }
  // A call written ahead but never finished has no result line: nothing is known of its outcome.
  const results = calls
    .filter((p) => p.state === "completed" || p.state === "error")
    .map((p) => ({
      type: "tool-result",
      id: p.callId,
      name: p.name,
      output: p.output ?? p.error ?? "",
      ...(p.exitCode !== undefined ? { exitCode: p.exitCode } : {}),
      ...(p.state === "error" ? { error: true } : {}),
      ...(p.path !== undefined ? { path: p.path } : {}),
      ...(p.diff !== undefined ? { diff: p.diff } : {})
    }))
  return [line, ...results]
}

/** One JSON object per line, newline-terminated. */
export const exportTrace = (sessionId: string, messages: ReadonlyArray<Message>, model?: string): string => {
  const lines: Array<Record<string, unknown>> = [{ type: "session", id: sessionId, ...(model !== undefined ? { model } : {}) }]
  for (const m of messages) {
    if (m.role === "user") lines.push({ type: "user", text: m.text, stored: m })
    else lines.push(...assistantLines(m))
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n"
}

export type ImportResult =
  | {
      readonly ok: true
      readonly sessionId: string | undefined
      readonly messages: ReadonlyArray<Message>
      /** What an agent's own log held that has no counterpart (file:line: why); never for trace v1. */
      readonly notes?: ReadonlyArray<string>
    }
  | { readonly ok: false; readonly problems: ReadonlyArray<string> }

/**
 * Trace v1 text back to messages. A line with a valid `stored` message is taken as is; a plain
 * trace (from another harness) is rebuilt from its standard fields. Problems name file:line.
 */
export const importTrace = (text: string, file: string, format?: TraceFormat): ImportResult => {
  const f = format ?? detectFormat(text.slice(0, 64 * 1024))
  if (f !== "trace") return importAgentLog(text, file, f)
  const parsed = parseTrace(text, file)
  if (parsed.errors.length > 0) return { ok: false, problems: parsed.errors.map(formatTraceProblem) }
  const rows = text.split(/\r?\n/)
  const derived = traceToSteps(parsed.lines).messages
  const problems: Array<string> = []
  const out: Array<Message> = []
  let next = 0
  for (const line of parsed.lines) {
    if (line.type !== "user" && line.type !== "assistant") continue
    const fallback = derived[next++]
    const raw = JSON.parse(rows[line.line - 1]!) as Record<string, unknown>
    if (raw["stored"] === undefined) {
      if (fallback !== undefined) out.push(fallback)
      continue
    }
    const stored = parseMessageBody(raw["stored"])
    if (!stored.ok) problems.push(`${file}:${line.line}: field "stored": ${stored.problem}`)
    else if (stored.message.role !== line.type) problems.push(`${file}:${line.line}: field "stored" holds a ${stored.message.role} message on a ${line.type} line`)
    else out.push(stored.message)
  }
  const ids = new Set<string>()
  for (const m of out) {
    if (ids.has(m.id)) problems.push(`${file}: message id ${m.id} appears twice`)
    ids.add(m.id)
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, sessionId: parsed.session?.id, messages: out }
}

/** An agent's own log (docs/audit.md) as messages: read to trace lines, then rebuilt as a plain trace is. */
const importAgentLog = (text: string, file: string, format: TraceFormat): ImportResult => {
  const read = readTraceText(text, file, format)
  const replay = traceToSteps(read.lines)
  const notes = [...read.notes, ...replay.problems.map((p) => ({ file, ...p }))].sort((x, y) => x.line - y.line).map(formatTraceProblem)
  return { ok: true, sessionId: read.session?.id, messages: replay.messages, notes }
}
