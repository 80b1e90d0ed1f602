/**
 * One entry point for the three tool-call formats models and servers produce (docs/rollback.md):
 *
 * - OpenAI Responses output items: `{ type: "function_call", call_id, name, arguments }`, alone,
 *   in an array, or as the `output` array of a whole response;
 * - Chat Completions `tool_calls`: `[{ id, type: "function", function: { name, arguments } }]`,
 *   alone, as an assistant message's `tool_calls`, or under `choices[0].message`;
 * - MCP-XML written in text: every `<use_mcp_tool>` block of a string (see `mcp-xml.ts`).
 *
 * Arguments (a JSON string, or an object some servers send already parsed) go through
 * `parseToolArguments`: parse → repair → `{ error, raw }`. Items without a tool name are skipped:
 * there is nothing to call. Never throws, whatever it is given.
 */
import { findMcpXmlBlocks } from "./mcp-xml.js"
import { parseToolArguments } from "./parse-arguments.js"
import type { ParsedToolCall, ToolCallFormat } from "./tool-call.js"

export interface ParseToolCallsOptions {
  /**
   * Split `server<sep>tool` function names into server and tool at the LAST separator
   * (MiroThinker names functions `tool-python-run_python_code` with "-"). Off by default: most
   * function names are plain tool names and may contain any separator.
   */
  readonly serverSeparator?: string
  /** Prefix for ids made up for calls that carry none (MCP-XML): `<prefix><index>`. */
  readonly idPrefix: string
}

export const DEFAULT_PARSE_TOOL_CALLS_OPTIONS: ParseToolCallsOptions = { idPrefix: "toolcall-" }

type Json = Record<string, unknown>

const asRecord = (v: unknown): Json | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null)
const asString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
const nonEmpty = (v: unknown): string | undefined => {
  const s = asString(v)?.trim()
  return s === undefined || s === "" ? undefined : s
}

type ArgumentsResult = Pick<ParsedToolCall, "arguments" | "argumentsValid" | "argumentsRepaired">

const readArguments = (raw: unknown): ArgumentsResult => {
  if (raw === undefined || raw === null) return { arguments: {}, argumentsValid: true, argumentsRepaired: false }
  const obj = asRecord(raw)
  if (obj !== null) return { arguments: { ...obj }, argumentsValid: true, argumentsRepaired: false }
  if (typeof raw !== "string") {
    const text = safeString(raw)
    return { arguments: { error: "tool arguments are neither a JSON string nor an object", raw: text }, argumentsValid: false, argumentsRepaired: false }
  }
  const parsed = parseToolArguments(raw)
  return parsed.ok
    ? { arguments: parsed.value, argumentsValid: true, argumentsRepaired: parsed.repaired }
    : { arguments: parsed.value, argumentsValid: false, argumentsRepaired: false }
}

const safeString = (v: unknown): string => {
  try {
    return typeof v === "bigint" ? v.toString() : (JSON.stringify(v) ?? String(v))
  } catch {
    return Object.prototype.toString.call(v)
  }
}

interface Draft {
  readonly id?: string
  readonly server?: string
  readonly name: string
  readonly rawArguments: unknown
  readonly format: ToolCallFormat
}

const splitName = (name: string, sep: string | undefined): { server?: string; name: string } => {
  if (sep === undefined || sep === "") return { name }
  const at = name.lastIndexOf(sep)
  if (at <= 0 || at + sep.length >= name.length) return { name }
  return { server: name.slice(0, at), name: name.slice(at + sep.length) }
}

const fromResponsesItem = (item: Json, sep: string | undefined): Draft | null => {
  const name = nonEmpty(item["name"])
  if (name === undefined) return null
  const id = nonEmpty(item["call_id"]) ?? nonEmpty(item["id"])
  return { ...(id !== undefined ? { id } : {}), ...splitName(name, sep), rawArguments: item["arguments"], format: "responses" }
}

const fromChatToolCall = (item: Json, sep: string | undefined): Draft | null => {
  const fn = asRecord(item["function"])
  const name = nonEmpty(fn?.["name"])
  if (fn === null || name === undefined) return null
  const id = nonEmpty(item["id"])
  return { ...(id !== undefined ? { id } : {}), ...splitName(name, sep), rawArguments: fn["arguments"], format: "chat" }
}

const fromMcpText = (text: string): ReadonlyArray<Draft> =>
  findMcpXmlBlocks(text).flatMap((b): Array<Draft> =>
    b.tool === undefined
      ? []
      : [{ ...(b.server !== undefined ? { server: b.server } : {}), name: b.tool, rawArguments: b.argumentsText ?? "", format: "mcp-xml" }]
  )

const fromItem = (item: unknown, sep: string | undefined): Draft | null => {
  const obj = asRecord(item)
  if (obj === null) return null
  if (obj["type"] === "function_call") return fromResponsesItem(obj, sep)
  if (asRecord(obj["function"]) !== null) return fromChatToolCall(obj, sep)
  return null
}

const MAX_DEPTH = 3

const collect = (input: unknown, sep: string | undefined, depth: number): ReadonlyArray<Draft> => {
  if (typeof input === "string") return fromMcpText(input)
  if (Array.isArray(input)) return input.flatMap((item) => fromItem(item, sep) ?? [])
  const obj = asRecord(input)
  if (obj === null || depth > MAX_DEPTH) return []
  const single = fromItem(obj, sep)
  if (single !== null) return [single]
  if (Array.isArray(obj["output"])) return collect(obj["output"], sep, depth + 1)
  if (Array.isArray(obj["tool_calls"]) && obj["tool_calls"].length > 0) return collect(obj["tool_calls"], sep, depth + 1)
  const choices = obj["choices"]
  if (Array.isArray(choices) && choices.length > 0) return collect(asRecord(choices[0])?.["message"], sep, depth + 1)
  // An assistant message without structured calls: its text may hold MCP-XML.
  if (typeof obj["content"] === "string") return fromMcpText(obj["content"])
  return []
}

/** Tool calls written as text (XML, JSON, MCP styles) found in a reply; never throws. */
export const parseToolCalls = (input: unknown, options: Partial<ParseToolCallsOptions> = {}): ReadonlyArray<ParsedToolCall> => {
  const opts: ParseToolCallsOptions = { ...DEFAULT_PARSE_TOOL_CALLS_OPTIONS, ...options }
  try {
    return collect(input, opts.serverSeparator, 0).map((d, index) => ({
      id: d.id ?? `${opts.idPrefix}${index}`,
      ...(d.server !== undefined ? { server: d.server } : {}),
      name: d.name,
      ...readArguments(d.rawArguments),
      format: d.format
    }))
  } catch {
    // Only a hostile input (a throwing getter, a Proxy) gets here: there is no call to recover.
    return []
  }
}
