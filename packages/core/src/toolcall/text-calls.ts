/**
 * Tool calls a model wrote in its reply text instead of through the structured interface
 * (docs/rollback.md): MCP-XML `<use_mcp_tool>` blocks, Hermes/Qwen `<tool_call>{json}</tool_call>`,
 * and a reply that is nothing but one of the JSON shapes `parseToolCalls` knows (a Chat Completions
 * message or `tool_calls` array, a Responses output item), optionally in a code fence.
 * A call is runnable only when it names a tool the request offered; drafts inside a thinking
 * block (`<think>…</think>`, or an unclosed `<think>` to the end) are never taken, since the model
 * was still deliberating there, nor are calls the reply only shows (quoted, fenced, an example:
 * `quotedAt`). Pure; never throws.
 */
import { quotedPlaces } from "../classify/quoted-text.js"
import { balancedJsonEnd, findMcpXmlBlocks } from "./mcp-xml.js"
import { parseToolArguments } from "./parse-arguments.js"
import { parseToolCalls } from "./parse-tool-calls.js"
import type { ParsedToolCall } from "./tool-call.js"

export interface SkippedTextCall {
  readonly name: string
  /**
   * `quoted`: the call stands in a code block, a block quote or a code span, or right after words
   * that say it is an example or is not to be run: shown, not asked for. `cut-off` / `unreadable`:
   * a `<tool_call>` whose JSON ends early or does not parse, with no name to read (`name` is "").
   */
  readonly reason: "not-offered" | "thinking" | "quoted" | "cut-off" | "unreadable"
}

/** A `<tool_call>` with no name to read, and why. */
interface Unread {
  readonly start: number
  readonly reason: "cut-off" | "unreadable"
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

// The name a `<tool_call>` body opens with, read even when the rest of it is cut off or broken.
const LEADING_NAME = /^\{\s*"name"\s*:\s*"([^"\\]{1,200})"/

/**
 * `<tool_call>{"name": …, "arguments": …}</tool_call>`; the object read to its balanced end. A body
 * that does not parse (cut off, a key named twice) is a call with invalid arguments when its name
 * can be read, and otherwise skipped as `cut-off` or `unreadable`. Text between the object's end and
 * the closing tag (`}}}`, a stray word) makes the call repaired: what the model wrote was not
 * exactly a call.
 */
const hermesCalls = (text: string): { readonly found: Array<Found>; readonly unread: Array<Unread> } => {
  const found: Array<Found> = []
  const unread: Array<Unread> = []
  for (const m of text.matchAll(TOOL_CALL_OPEN)) {
    let at = m.index + m[0].length
    while (at < text.length && /\s/.test(text[at]!)) at++
    if (text[at] !== "{") continue
    const end = balancedJsonEnd(text, at)
    const body = parseToolArguments(text.slice(at, end ?? text.length))
    const name = body.ok ? (typeof body.value["name"] === "string" ? body.value["name"].trim() : "") : (LEADING_NAME.exec(text.slice(at))?.[1]?.trim() ?? "")
    if (name === "") {
      if (!body.ok) unread.push({ start: m.index, reason: body.cutOff ? "cut-off" : "unreadable" })
      continue
    }
    const closing = /^([^<]*?)<\s*\/\s*tool_call\s*>/i.exec(text.slice(end ?? text.length))
    const stray = closing !== null && closing[1]!.trim() !== ""
    const stop = (end ?? text.length) + (closing?.[0].length ?? 0)
    if (!body.ok) {
      found.push({ start: m.index, end: stop, call: { name, arguments: body.value, argumentsValid: false, argumentsRepaired: false, format: "tool-call-tag" } })
      continue
    }
    const read = argumentsOf(body.value["arguments"] ?? body.value["parameters"] ?? {})
    // The call's own JSON needed repair, or stray text stood before its closing tag: so did its arguments, which were read out of it.
    found.push({ start: m.index, end: stop, call: { name, ...read, argumentsRepaired: read.argumentsRepaired || body.repaired || stray, format: "tool-call-tag" } })
  }
  return { found, unread }
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

// Words just before a call that say it is shown, not asked for: "do NOT run it", "won't execute this",
// "for example", "e.g.". Read on the call's own line and the line before it: a model that runs a call
// after saying what did not run earlier ("the tests will not run without it") still asks for it.
const NOT_ASKED = /\b(?:(?:do|will|would|should|must)\s*(?:not|n't)|won't|don't|never)\s+(?:run|execute|invoke|call)\s+(?:it|this|that|these|them)\b|\bnot\s+to\s+be\s+(?:run|executed|invoked|called)\b|\b(?:for\s+(?:example|instance)|e\.g\.|an?\s+example(?:\s+call)?\s*[:,-]|example\s*:)/i

/** The end of a sentence with more words after it (not the dot of "e.g." or "i.e."). */
const SENTENCE_END = /(?<!\b(?:e\.g|i\.e))[.!?]\s+(?=\S)/i

/** A sentence in which the model says it acts now ("Now I write the marker.", "Instead, I use the shell.", "Let me run it"). */
const ACTING = /\b(?:now|instead|next)\b[^.!?]*\b(?:I|I'll|I will|let me|let's)\b|\b(?:let me|let's|I'll|I will|I am going to|I'm going to)\s+(?!not\b|never\b)\w+/i

/**
 * Whether words before a call say it is only shown: an example, or not to be run. A later sentence
 * in which the model says it acts now ("…I will not run it. Now I write the marker.") asks for the
 * call after all; without one ("Do not run this. Here it is:") it stays shown.
 */
const leadShows = (lead: string): boolean => {
  const sentences = lead.split(SENTENCE_END)
  let shownAt = sentences.length - 1
  while (shownAt >= 0 && !NOT_ASKED.test(sentences[shownAt]!)) shownAt--
  return shownAt !== -1 && !sentences.slice(shownAt + 1).some((sentence) => ACTING.test(sentence))
}

/**
 * Where a call is shown rather than asked for: quoted (`quotedPlaces`: a code block amid prose, a
 * block quote line, a code span), or after words on its line (or the one before) that call it an
 * example or say it is not to be run, unless a sentence after them says the model acts now (`leadShows`).
 */
const quotedAt = (text: string): ((at: number) => boolean) => {
  const quoted = quotedPlaces(text)
  return (at) => {
    if (quoted(at)) return true
    const lineStart = text.lastIndexOf("\n", at - 1) + 1
    const previousLine = text.lastIndexOf("\n", Math.max(0, lineStart - 2)) + 1
    const lead = text.slice(lineStart > 0 ? previousLine : lineStart, at).split(/\n[ \t]*\n/).at(-1) ?? ""
    return leadShows(lead)
  }
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
    const hermes = hermesCalls(text)
    const tagged = [...mcpCalls(text), ...hermes.found].sort((a, b) => a.start - b.start)
    const found = tagged.length > 0 ? tagged : wholeJsonCalls(text)
    const shown = tagged.length > 0 || hermes.unread.length > 0 ? quotedAt(text) : () => false
    const calls: Array<ParsedToolCall> = []
    const skipped: Array<SkippedTextCall> = hermes.unread
      .filter((u) => !inThinking(u.start) && !shown(u.start))
      .map((u) => ({ name: "", reason: u.reason }))
    const taken: Array<Found> = []
    for (const f of found) {
      const name = offeredName(f.call, offered)
      if (inThinking(f.start)) skipped.push({ name: f.call.name, reason: "thinking" })
      else if (shown(f.start)) skipped.push({ name: f.call.name, reason: "quoted" })
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
