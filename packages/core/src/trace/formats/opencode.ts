/**
 * OpenCode session exports (`opencode export SESSION`): one JSON document `{info, messages}`,
 * each message `{info, parts}`. An assistant message holds one or more model calls, each between
 * a `step-start` and a `step-finish` part (which carries the call's tokens and finish reason);
 * each is a step. A `tool` part holds the call and, in its `state`, the result: `completed` with
 * `output` and `metadata` (the shell's `exit`, an edit's `diff`), `error` with its message.
 * The compaction agent's replies (`summary: true`, mode `compaction`) summarise the run for the next
 * request: the harness's bookkeeping, not steps of the run.
 */
import { isJsonObject, type JsonObject } from "../fields.js"
import { TRACE_FINISHES, type TraceFinish } from "../types.js"
import { newDraft, joinText, type StepDraft, type TraceBuilder } from "./builder.js"
import type { LineLocator } from "./document.js"
import { documentReader } from "./document.js"
import { arr, num, obj, str, textOf } from "./json-line.js"
import type { TraceReader } from "./reader.js"

/** Parts with nothing to replay (file snapshots, attachments, sub-agent markers). */
const SILENT_PARTS = new Set(["snapshot", "patch", "file", "agent", "subtask", "compaction", "retry"])

type Result = { readonly part: JsonObject; readonly line: number }

const finishOf = (reason: string | undefined): TraceFinish | undefined =>
  reason === undefined ? undefined : (TRACE_FINISHES as ReadonlyArray<string>).includes(reason) ? (reason as TraceFinish) : "other"

const tokensOf = (t: JsonObject | undefined) => {
  if (t === undefined) return undefined
  const cache = obj(t, "cache")
  const input = (num(t, "input") ?? 0) + (num(cache, "read") ?? 0) + (num(cache, "write") ?? 0)
  const output = num(t, "output") ?? 0
  return { inputTokens: input, outputTokens: output, totalTokens: input + output, reasoningTokens: num(t, "reasoning") ?? 0, cachedInputTokens: num(cache, "read") ?? 0 }
}

/** The result of a finished tool part, from its state. */
const emitResult = (b: TraceBuilder, r: Result): void => {
  const state = obj(r.part, "state")
  const status = str(state, "status")
  const id = str(r.part, "callID") ?? str(r.part, "id") ?? ""
  const name = str(r.part, "tool")
  if (status !== "completed" && status !== "error") return
  const meta = obj(state, "metadata")
  const exit = num(meta, "exit")
  const diff = str(meta, "diff")
  const path = str(obj(state, "input"), "filePath") ?? str(obj(meta, "filediff"), "file")
  b.result({
    line: r.line,
    id,
    output: status === "error" ? (str(state, "error") ?? "") : (str(state, "output") ?? ""),
    error: status === "error",
    ...(name !== undefined ? { name } : {}),
    ...(exit !== undefined && Number.isInteger(exit) ? { exitCode: exit } : {}),
    ...(diff !== undefined && path !== undefined ? { diff, path } : {})
  })
}

/** Walks one assistant message's parts, emitting a step per model call with its results after it. */
const assistantMessage = (b: TraceBuilder, m: JsonObject, at: LineLocator): void => {
  const info = obj(m, "info")
  let d: StepDraft | null = null
  let results: Array<Result> = []
  const close = (): void => {
    if (d !== null) b.assistant(d)
    for (const r of results) emitResult(b, r)
    d = null
    results = []
  }
  for (const p of arr(m, "parts")) {
    if (!isJsonObject(p)) continue
    const type = str(p, "type") ?? "?"
    const line = at.find(`"${str(p, "id") ?? type}"`)
    if (type === "step-start") close()
    d ??= newDraft(line)
    if (type === "text") d.text = joinText(d.text, str(p, "text") ?? "")
    else if (type === "reasoning") d.reasoning = joinText(d.reasoning, str(p, "text") ?? "")
    else if (type === "tool") {
      d.toolCalls.push({ id: str(p, "callID") ?? str(p, "id") ?? `t${line}`, name: str(p, "tool") ?? "?", input: obj(obj(p, "state"), "input") ?? {} })
      results.push({ part: p, line })
    } else if (type === "step-finish") {
      const finish = finishOf(str(p, "reason"))
      if (finish !== undefined) d.finish = finish
      const usage = tokensOf(obj(p, "tokens"))
      if (usage !== undefined) d.usage = usage
      close()
    } else if (type !== "step-start" && !SILENT_PARTS.has(type)) b.note(line, `part "${type}" has no trace v1 counterpart; skipped`)
  }
  const error = obj(info, "error")
  if (error !== undefined) {
    d ??= newDraft(at.find(`"${str(info, "id") ?? "error"}"`))
    d.error = { message: str(obj(error, "data"), "message") ?? str(error, "message") ?? str(error, "name") ?? "error", ...(str(error, "name") ? { name: str(error, "name")! } : {}) }
  }
  close()
}

/** An assistant message written by OpenCode's compaction agent: the summary of the run so far. */
const isCompactionSummary = (info: JsonObject | undefined): boolean =>
  info?.["summary"] === true || str(info, "mode") === "compaction" || str(info, "agent") === "compaction"

const convert = (doc: unknown, b: TraceBuilder, at: LineLocator): void => {
  if (!isJsonObject(doc) || !Array.isArray(doc["messages"])) return b.note(1, `not an OpenCode export (expected {"info", "messages"}); nothing read`)
  const info = obj(doc, "info")
  b.session(1, { id: str(info, "id") })
  for (const m of doc["messages"]) {
    const mi = isJsonObject(m) ? obj(m, "info") : undefined
    const line = at.find(`"${str(mi, "id") ?? "info"}"`)
    const role = str(mi, "role")
    if (role === "assistant" && isCompactionSummary(mi)) continue
    if (role === "assistant") {
      b.session(line, { model: str(mi, "modelID"), agent: str(mi, "mode") ?? str(mi, "agent") })
      assistantMessage(b, m as JsonObject, at)
    } else if (role === "user") {
      const parts = arr(m as JsonObject, "parts").filter(isJsonObject)
      for (const p of parts) {
        const type = str(p, "type") ?? "?"
        if (type !== "text" && !SILENT_PARTS.has(type)) b.note(at.find(`"${str(p, "id") ?? type}"`), `part "${type}" of a user message has no trace v1 counterpart; skipped`)
      }
      b.user(line, parts.filter((p) => p["type"] === "text" && p["ignored"] !== true).map(textOf).join("\n"))
    } else b.note(line, `message with role "${role ?? "?"}" skipped`)
  }
}

export const openCodeReader = (file: string): TraceReader => documentReader(file, convert)
