/**
 * Tool calls a model wrote in its reply text instead of through the structured interface
 * (docs/rollback.md): MCP-XML `<use_mcp_tool>` blocks, Hermes/Qwen `<tool_call>{json}</tool_call>`,
 * and a reply that is nothing but one of the JSON shapes `parseToolCalls` knows (a Chat Completions
 * message or `tool_calls` array, a Responses output item), optionally in a code fence.
 * A call is runnable only when it names a tool the request offered; drafts inside a thinking
 * block (`<think>…</think>`, or an unclosed `<think>` to the end) are never taken, since the model
 * was still deliberating there. Pure; never throws.
 */
import { balancedJsonEnd, findMcpXmlBlocks } from "./mcp-xml.js"
import { parseToolArguments } from "./parse-arguments.js"
import { parseToolCalls } from "./parse-tool-calls.js"
import type { ParsedToolCall } from "./tool-call.js"

export interface SkippedTextCall {
  readonly name: string
  readonly reason: "not-offered" | "thinking"
}

export interface TextToolCalls {
  /** Calls naming an offered tool, in text order. */
  readonly calls: ReadonlyArray<ParsedToolCall>
  readonly skipped: ReadonlyArray<SkippedTextCall>
  /** The text with the taken calls removed (prose and skipped markup stay). */
  readonly prose: string
}

interface Found {
  readonly start: number
  readonly end: number
  readonly call: Omit<ParsedToolCall, "id">
}

const THINK = /<\s*(think|thinking)\s*>([\s\S]*?)(?:<\s*\/\s*\1\s*>|$)/gi

/** [start, end) ranges of thinking blocks. */
export const thinkingRanges = (text: string): ReadonlyArray<readonly [number, number]> =>
  [...text.matchAll(THINK)].map((m) => [m.index, m.index + m[0].length] as const)

const argumentsOf = (raw: unknown): Pick<ParsedToolCall, "arguments" | "argumentsValid" | "argumentsRepaired"> => {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) return { arguments: { ...(raw as object) }, argumentsValid: true, argumentsRepaired: false }
  const parsed = parseToolArguments(typeof raw === "string" ? raw : "")
  return parsed.ok
    ? { arguments: parsed.value, argumentsValid: true, argumentsRepaired: parsed.repaired }
    : { arguments: parsed.value, argumentsValid: false, argumentsRepaired: false }
}

const mcpCalls = (text: string): Array<Found> =>
  findMcpXmlBlocks(text).flatMap((b): Array<Found> =>
    b.tool === undefined
      ? []
      : [{ start: b.start, end: b.end, call: { ...(b.server !== undefined ? { server: b.server } : {}), name: b.tool, ...argumentsOf(b.argumentsText ?? ""), format: "mcp-xml" } }]
  )

const TOOL_CALL_OPEN = /<\s*tool_call\s*>/gi

/** `<tool_call>{"name": …, "arguments": …}</tool_call>`; the object read to its balanced end. */
const hermesCalls = (text: string): Array<Found> => {
  const out: Array<Found> = []
  for (const m of text.matchAll(TOOL_CALL_OPEN)) {
    let at = m.index + m[0].length
    while (at < text.length && /\s/.test(text[at]!)) at++
    if (text[at] !== "{") continue
    const end = balancedJsonEnd(text, at)
    const body = parseToolArguments(text.slice(at, end ?? text.length))
    const name = body.ok && typeof body.value["name"] === "string" ? body.value["name"].trim() : ""
    if (name === "") continue
    const close = /^\s*<\s*\/\s*tool_call\s*>/i.exec(text.slice(end ?? text.length))
    const stop = (end ?? text.length) + (close?.[0].length ?? 0)
    const args = body.ok ? (body.value["arguments"] ?? body.value["parameters"] ?? {}) : ""
    out.push({ start: m.index, end: stop, call: { name, ...argumentsOf(args), format: "tool-call-tag" } })
  }
  return out
}

/** The whole reply as one JSON tool-call shape (Chat Completions, Responses); fences allowed; prose around it disqualifies. */
const wholeJsonCalls = (text: string): Array<Found> => {
  const body = text.trim().replace(/^```[\w-]*\s*\n?/, "").replace(/\n?\s*```$/, "").trim()
  if (!body.startsWith("{") && !body.startsWith("[")) return []
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return []
  }
  return parseToolCalls(value)
    .filter((c) => c.format !== "mcp-xml")
    .map(({ id: _id, ...call }) => ({ start: 0, end: text.length, call }))
}

/**
 * The offered tool a call names: its own name, or — for MCP-XML, whose server and tool are given
 * apart — the server-qualified name a runtime may offer it under (`server-tool`, `server__tool`,
 * `server.tool`, `mcp__server__tool`).
 */
const offeredName = (call: Omit<ParsedToolCall, "id">, offered: ReadonlySet<string>): string | undefined => {
  if (offered.has(call.name)) return call.name
  if (call.server === undefined) return undefined
  const s = call.server
  return [`${s}-${call.name}`, `${s}__${call.name}`, `${s}.${call.name}`, `mcp__${s}__${call.name}`].find((n) => offered.has(n))
}

/** Tool calls written in `text`, split into the ones to run (offered tools) and the rest. */
export const findTextToolCalls = (text: string, offered: ReadonlySet<string>, idPrefix = "textcall-"): TextToolCalls => {
  try {
    const thinking = thinkingRanges(text)
    const inThinking = (at: number) => thinking.some(([s, e]) => at >= s && at < e)
    const tagged = [...mcpCalls(text), ...hermesCalls(text)].sort((a, b) => a.start - b.start)
    const found = tagged.length > 0 ? tagged : wholeJsonCalls(text)
    const calls: Array<ParsedToolCall> = []
    const skipped: Array<SkippedTextCall> = []
    const taken: Array<Found> = []
    for (const f of found) {
      const name = offeredName(f.call, offered)
      if (inThinking(f.start)) skipped.push({ name: f.call.name, reason: "thinking" })
      else if (name === undefined) skipped.push({ name: f.call.name, reason: "not-offered" })
      else {
        calls.push({ id: `${idPrefix}${calls.length}`, ...f.call, name })
        taken.push(f)
      }
    }
    let prose = ""
    let at = 0
    for (const f of taken) {
      prose += text.slice(at, Math.max(at, f.start))
      at = Math.max(at, f.end)
    }
    prose += text.slice(at)
    return { calls, skipped, prose: taken.length > 0 ? prose.replace(/\n{3,}/g, "\n\n").trim() : text }
  } catch {
    return { calls: [], skipped: [], prose: text }
  }
}
