/**
 * Gemini CLI chats, in either of the forms it saves them:
 * - session records (~/.gemini/tmp/<project>/chats/session-*.json): `{sessionId, messages}`, where a
 *   `gemini` message is one step with its `thoughts`, `toolCalls` (each with its `result`, `status`
 *   and, for edits, a `resultDisplay` holding the `fileDiff`) and `tokens`;
 * - the same record kept as a log (`session-*.jsonl`, newer versions): a header line
 *   `{sessionId, projectHash, startTime, …}`, then messages, each written again whole when it
 *   changes (a step's `toolCalls` are added once they ran: the last line of an id wins), and
 *   `{"$set": {…}}` lines that set the record's fields (`messages`: the list so far);
 * - checkpoints written by `/chat save TAG` (checkpoint-TAG.json): the model's history, a list of
 *   `{role, parts}` (or `{history: [...]}`), where `model` turns hold text, thoughts and
 *   `functionCall`s and the next `user` turn the `functionResponse`s.
 */
import { isJsonObject, type JsonObject } from "../fields.js"
import { newDraft, joinText, type StepDraft, type TraceBuilder } from "./builder.js"
import { documentReader, type LineLocator } from "./document.js"
import { geminiHistory } from "./gemini-history.js"
import { arr, exitCodeIn, num, obj, readJsonLine, str, textOf } from "./json-line.js"
import type { TraceReader } from "./reader.js"

/** A function response's text: its `output`, else its `error`, else the response as JSON. */
export const responseText = (result: unknown): string => {
  const parts = Array.isArray(result) ? result : [result]
  return parts
    .map((p) => {
      if (typeof p === "string") return p
      if (!isJsonObject(p)) return ""
      const response = obj(obj(p, "functionResponse"), "response")
      if (response === undefined) return str(p, "text") ?? ""
      return str(response, "output") ?? str(response, "error") ?? JSON.stringify(response)
    })
    .filter((s) => s !== "")
    .join("\n")
}

const SHELL = "run_shell_command"
/** Tool call states of a call that had no result yet when the chat was saved. */
const UNFINISHED = new Set(["validating", "scheduled", "executing", "awaiting_approval"])

/** The calls a record has answered, so the same answer written twice (a resumed chat's copy) counts once. */
type Answered = Set<string>

const toolCall = (b: TraceBuilder, d: StepDraft, c: JsonObject, line: number, results: Array<() => void>, answered: Answered): void => {
  const id = str(c, "id") ?? `g${line}-${d.toolCalls.length}`
  const name = str(c, "name") ?? "?"
  const args = obj(c, "args") ?? {}
  d.toolCalls.push({ id, name, input: args })
  const status = str(c, "status")
  if (status === undefined || UNFINISHED.has(status)) return
  answered.add(id)
  const output = responseText(c["result"]) || (typeof c["resultDisplay"] === "string" ? c["resultDisplay"] : "")
  const display = obj(c, "resultDisplay")
  const diff = str(display, "fileDiff")
  const path = str(args, "file_path") ?? str(display, "fileName")
  const exitCode = name === SHELL ? exitCodeIn(output) : undefined
  results.push(() =>
    b.result({
      line,
      id,
      name,
      output,
      error: status !== "success",
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(diff !== undefined && path !== undefined ? { diff, path } : {})
    })
  )
}

/** The parts of a message's `content` that hold `key` (`functionCall`, `functionResponse`). */
const partsHolding = (content: unknown, key: string): Array<JsonObject> =>
  (Array.isArray(content) ? content : []).flatMap((p) => {
    const held = isJsonObject(p) ? obj(p, key) : undefined
    return held === undefined ? [] : [held]
  })

/**
 * A resumed chat rewrites its earlier turns (`$set` of `messages`) in the model's own form: a
 * `gemini` message's calls as `functionCall` parts of its content, their answers as `user`
 * messages of `functionResponse` parts (sometimes twice: a `…_response` copy beside the original).
 */
const contentCalls = (d: StepDraft, m: JsonObject, line: number): void => {
  for (const call of partsHolding(m["content"], "functionCall")) {
    d.toolCalls.push({ id: str(call, "id") ?? `g${line}-${d.toolCalls.length}`, name: str(call, "name") ?? "?", input: obj(call, "args") ?? {} })
  }
}

/** The answers a `user` message of `functionResponse` parts holds, as results; false when it holds none. */
const responsesIn = (b: TraceBuilder, m: JsonObject, line: number, answered: Answered): boolean => {
  const responses = partsHolding(m["content"], "functionResponse")
  if (responses.length === 0) return false
  for (const r of responses) {
    const id = str(r, "id")
    if (id === undefined || answered.has(id)) continue
    answered.add(id)
    const name = str(r, "name") ?? "?"
    const output = responseText([{ functionResponse: r }])
    const exitCode = name === SHELL ? exitCodeIn(output) : undefined
    b.result({ line, id, name, output, error: obj(r, "response")?.["error"] !== undefined, ...(exitCode !== undefined ? { exitCode } : {}) })
  }
  return true
}

const geminiMessage = (b: TraceBuilder, m: JsonObject, line: number, answered: Answered): void => {
  const d = newDraft(line)
  d.text = textOf(m["content"])
  d.reasoning = arr(m, "thoughts")
    .map((t) => (isJsonObject(t) ? [str(t, "subject"), str(t, "description")].filter(Boolean).join(": ") : ""))
    .reduce(joinText, "")
  const results: Array<() => void> = []
  for (const c of arr(m, "toolCalls")) if (isJsonObject(c)) toolCall(b, d, c, line, results, answered)
  if (d.toolCalls.length === 0) contentCalls(d, m, line)
  const t = obj(m, "tokens")
  if (t !== undefined) {
    const usage = { inputTokens: num(t, "input") ?? 0, outputTokens: num(t, "output") ?? 0, totalTokens: num(t, "total") ?? 0, cachedInputTokens: num(t, "cached") ?? 0, reasoningTokens: num(t, "thoughts") ?? 0 }
    d.usage = usage
  }
  d.finish = d.toolCalls.length > 0 ? "tool-calls" : "stop"
  b.session(line, { model: str(m, "model") })
  b.assistant(d)
  for (const r of results) r()
}

const sessionRecord = (doc: JsonObject, b: TraceBuilder, lineOf: (m: JsonObject) => number): void => {
  b.session(1, { id: str(doc, "sessionId") })
  const answered: Answered = new Set()
  for (const m of arr(doc, "messages")) {
    if (!isJsonObject(m)) continue
    const line = lineOf(m)
    const type = str(m, "type")
    if (type === "user") {
      if (!responsesIn(b, m, line, answered)) b.user(line, textOf(m["content"]))
    } else if (type === "gemini") geminiMessage(b, m, line, answered)
    else if (type === "error") {
      const d = newDraft(line)
      d.error = { message: textOf(m["content"]) || "error" }
      b.assistant(d)
    } else if (type !== "info" && type !== "warning") b.note(line, `message of type "${type ?? "?"}" skipped`)
  }
}

const convert = (doc: unknown, b: TraceBuilder, at: LineLocator): void => {
  if (Array.isArray(doc)) return geminiHistory(doc, b, at)
  if (isJsonObject(doc) && Array.isArray(doc["history"])) return geminiHistory(doc["history"], b, at)
  if (isJsonObject(doc) && Array.isArray(doc["messages"])) return sessionRecord(doc, b, (m) => at.find(`"${str(m, "id") ?? "type"}"`))
  b.note(1, `not a Gemini CLI chat (expected a session record {sessionId, messages} or a checkpoint [{role, parts}]); nothing read`)
}

/**
 * The session record rebuilt from its log: the header's fields, `$set` lines applied, each message
 * at its place of first appearance with its last written content (and the line of that).
 */
const sessionLog = (rows: ReadonlyArray<string>, b: TraceBuilder): boolean => {
  const first = rows.findIndex((r) => r.trim() !== "")
  if (first === -1 || !readJsonLine(rows[first]!).ok) return false
  const messages = new Map<string, { message: JsonObject; line: number }>()
  // Messages written before a `$set` that leaves them out: Gemini CLI cut a loop it saw, or rewound.
  const dropped = new Map<string, number>()
  let sessionId: string | undefined
  const put = (m: unknown, line: number, n: number) => {
    if (!isJsonObject(m)) return
    const id = str(m, "id") ?? `line ${line}:${n}`
    messages.set(id, { message: m, line })
    dropped.delete(id)
  }
  rows.forEach((raw, i) => {
    if (raw.trim() === "") return
    const parsed = readJsonLine(raw)
    if (!parsed.ok) return b.note(i + 1, `${parsed.why}; line skipped`)
    const o = parsed.value
    sessionId ??= str(o, "sessionId")
    const set = obj(o, "$set")
    if (set !== undefined && Array.isArray(set["messages"])) {
      for (const [id, e] of messages) if (str(e.message, "type") === "gemini" || str(e.message, "type") === "user") dropped.set(id, i + 1)
      messages.clear()
      set["messages"].forEach((m, n) => put(m, i + 1, n))
    } else if (set === undefined && typeof o["type"] === "string") put(o, i + 1, 0)
  })
  if (dropped.size > 0) {
    const at = Math.min(...dropped.values())
    b.note(at, `the chat's messages were set anew here and ${dropped.size} message(s) written before are not in them (Gemini CLI cut a loop it saw, or the chat was rewound); they are not audited`)
  }
  const lines = new Map([...messages.values()].map((e) => [e.message, e.line]))
  sessionRecord({ sessionId, messages: [...messages.values()].map((e) => e.message) }, b, (m) => lines.get(m) ?? 1)
  return true
}

export const geminiReader = (file: string): TraceReader => documentReader(file, convert, sessionLog)
