/**
 * Which log a file is, from its first bytes: what each agent writes first is distinct enough
 * (Codex wraps every record in `{type, payload}`, Claude Code's messages carry `uuid` and a
 * `message`, OpenCode exports open with the session `info`, Gemini CLI chats are a session record
 * or a list of turns, pi's session files open with a header that names its `version` and `cwd`
 * and link their entries by `parentId`). A file that matches none is read as trace v1, whose errors
 * then say why.
 */
import { isJsonObject, type JsonObject } from "../fields.js"
import { parseCutJson } from "../parse.js"
import { obj } from "./json-line.js"
import type { TraceFormat } from "./reader.js"

const CODEX_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"])
const CODEX_ITEMS = new Set(["message", "function_call", "function_call_output", "reasoning", "custom_tool_call", "local_shell_call"])
const CLAUDE_TYPES = new Set(["summary", "file-history-snapshot", "queue-operation"])
const TRACE_TYPES = new Set(["session", "user", "assistant", "tool-result"])

/**
 * A Qwen Code record: its `message` is the Gemini API's `{role, parts}` (Claude Code's holds
 * `content`), or it carries a field only Qwen Code writes. Claude Code's records also have
 * `uuid`, `sessionId` and user / assistant / system types, so this is asked first.
 */
const isQwenCode = (o: JsonObject): boolean => {
  const message = o["message"]
  return (isJsonObject(message) && Array.isArray(message["parts"])) || "systemPayload" in o || "toolCallResult" in o || "usageMetadata" in o || o["type"] === "tool_result"
}

/** pi's entry types besides `message` (which Codex's items share as a type name). */
const PI_TYPES = new Set(["model_change", "thinking_level_change", "compaction", "branch_summary", "custom_message", "label", "session_info"])

/**
 * A pi session record: its header (a trace v1 `session` line names no `cwd`), a `message` entry
 * (a Codex item of that type holds its `role` itself, not in a `message`), or another entry linked
 * to its parent by `parentId`.
 */
const isPi = (o: JsonObject, type: unknown): boolean =>
  (type === "session" && typeof o["cwd"] === "string" && (typeof o["version"] === "number" || typeof o["timestamp"] === "string")) ||
  (type === "message" && typeof obj(o, "message")?.["role"] === "string") ||
  ("parentId" in o && typeof type === "string" && PI_TYPES.has(type))

/** What one JSON Lines record says about its file, if anything. */
const formatOfRecord = (o: JsonObject): TraceFormat | undefined => {
  const type = o["type"]
  if (isPi(o, type)) return "pi"
  if ("uuid" in o && "sessionId" in o && isQwenCode(o)) return "qwen-code"
  // Gemini CLI's session log: its header, its `$set` lines, its `gemini` messages.
  if (("sessionId" in o && "projectHash" in o) || "$set" in o || type === "gemini") return "gemini"
  if (typeof type === "string" && CODEX_TYPES.has(type) && "payload" in o) return "codex"
  if ("record_type" in o) return "codex"
  if (typeof type === "string" && CLAUDE_TYPES.has(type)) return "claude-code"
  if ((type === "user" || type === "assistant") && (isJsonObject(o["message"]) || "uuid" in o)) return "claude-code"
  if (typeof type === "string" && "uuid" in o && "sessionId" in o) return "claude-code"
  if (type === "system" && o["subtype"] === "init" && "session_id" in o) return "claude-code"
  if (typeof type === "string" && TRACE_TYPES.has(type)) return "trace"
  if (typeof type === "string" && CODEX_ITEMS.has(type)) return "codex"
  return undefined
}

const parseObject = (line: string, cut = false): JsonObject | undefined => {
  try {
    const v: unknown = cut ? parseCutJson(line) : JSON.parse(line)
    return isJsonObject(v) ? v : undefined
  } catch {
    return undefined
  }
}

/**
 * A row of the head as a record. The head's last row may be cut where the head ends (a record
 * longer than the head: an agent's first record holding a pasted prompt of MBs): its fields
 * before the cut (`type`, `payload`, `uuid`…) come first in every agent's records and still tell it.
 */
const recordOfRow = (row: string, lastOfHead: boolean): JsonObject | undefined =>
  parseObject(row) ?? (lastOfHead ? parseObject(row, true) : undefined)

/** Chars of a text the format is told from (at least; a file's head reaches past its first line). */
export const DETECT_HEAD_CHARS = 64 * 1024
/** Most chars of a text read to reach the end of its first line: past that its cut beginning decides. */
export const DETECT_MAX_CHARS = 4 * 1024 * 1024

/** The beginning of a whole text the format is told from: its first DETECT_HEAD_CHARS, or to its first line's end (at most DETECT_MAX_CHARS). */
export const detectionHead = (text: string): string => {
  const firstLineEnd = text.indexOf("\n", text.search(/\S/))
  const end = firstLineEnd === -1 ? text.length : firstLineEnd + 1
  return text.slice(0, Math.min(Math.max(DETECT_HEAD_CHARS, end), DETECT_MAX_CHARS))
}

/**
 * A SWE-agent or mini-SWE-agent trajectory: mini's names its version and format (an OpenCode export
 * also opens with `info`, but its messages hold `parts`, never a system prompt); SWE-agent's steps
 * carry an `observation`, its history a `message_type`.
 */
const isSweAgent = (head: string): boolean =>
  /"(?:mini_version|trajectory_format)"\s*:/.test(head) ||
  (/"messages"\s*:/.test(head) && /"role"\s*:\s*"system"/.test(head) && !/"parts"\s*:/.test(head)) ||
  (/"trajectory"\s*:\s*\[/.test(head) && /"(?:observation|message_type)"\s*:/.test(head))

/** A whole JSON document, told apart by the keys near its top. */
const formatOfDocument = (head: string): TraceFormat | undefined => {
  if (isSweAgent(head)) return "swe-agent"
  if (/^\s*\[/.test(head)) return /"role"\s*:/.test(head) ? "gemini" : undefined
  if (/"sessionId"\s*:/.test(head) && /"messages"\s*:/.test(head)) return "gemini"
  if (/^\s*\{\s*"history"\s*:/.test(head)) return "gemini"
  if (/^\s*\{\s*"info"\s*:/.test(head) || (/"messages"\s*:/.test(head) && /"parts"\s*:/.test(head))) return "opencode"
  return undefined
}

/** The format of a file from its beginning (a few KB are plenty); trace v1 when nothing matches. */
export const detectFormat = (head: string): TraceFormat => {
  const text = head.replace(/^\uFEFF/, "")
  const rows = text.split(/\r?\n/).filter((r) => r.trim() !== "")
  // A head that does not end at a line's end was cut inside its last row.
  const cutRow = /\n\s*$/.test(text) ? -1 : rows.length - 1
  const first = rows[0] === undefined ? undefined : recordOfRow(rows[0], cutRow === 0)
  // A first row that is no record: a whole document (pretty-printed JSON), else JSON Lines whose first
  // line is damaged (cut short, a stray line before the log), which its other records still tell.
  if (first === undefined) return formatOfDocument(text) ?? formatOfRows(rows, cutRow) ?? "trace"
  return formatOfRows(rows, cutRow) ?? formatOfDocument(text) ?? "trace"
}

/** JSON Lines: the first of the first 50 records that says something decides. */
const formatOfRows = (rows: ReadonlyArray<string>, cutRow: number): TraceFormat | undefined => {
  for (const [i, row] of rows.slice(0, 50).entries()) {
    const o = recordOfRow(row, i === cutRow)
    const f = o === undefined ? undefined : formatOfRecord(o)
    if (f !== undefined) return f
  }
  return undefined
}
