/**
 * Format leak (docs/rollback.md): the model wrote tool-call markup as plain text instead of making a
 * structured call, so nothing ran. Looked for only in a reply with no structured call — a
 * runtime that parses MCP-XML from text (`parseToolCalls`) counts the calls it parsed as
 * structured. Markup in a quote (a code block amid prose, a `> ` line, a code span) is no leak.
 * Markers: MiroThinker's MCP tags (opening or closing, any case, whitespace inside
 * the brackets allowed) and every model family's markers from `classify/markup.ts`.
 */
import { findToolCallMarkup, TOOL_CALL_MARKERS } from "../classify/markup.js"
import { withoutQuotes } from "../classify/quoted-text.js"
import type { ToolCallMarker } from "../classify/markup.js"

export const MCP_TAG_MARKERS: ReadonlyArray<ToolCallMarker> = [
  { id: "use_mcp_tool", family: "MCP XML", pattern: /<\s*\/?\s*use_mcp_tool\s*>/i },
  { id: "server_name", family: "MCP XML", pattern: /<\s*\/?\s*server_name\s*>/i },
  { id: "tool_name", family: "MCP XML", pattern: /<\s*\/?\s*tool_name\s*>/i },
  { id: "arguments", family: "MCP XML", pattern: /<\s*\/?\s*arguments\s*>/i }
]

export const FORMAT_LEAK_MARKERS: ReadonlyArray<ToolCallMarker> = [...MCP_TAG_MARKERS, ...TOOL_CALL_MARKERS]

export interface FormatLeak {
  /** The marker's id (`use_mcp_tool`, `invoke`, `tool_call` …). */
  readonly marker: string
  readonly family: string
}

/** The leak in `text`, or null. `structuredCalls` = how many real calls the reply made. */
export const detectFormatLeak = (
  text: string,
  structuredCalls: number,
  markers: ReadonlyArray<ToolCallMarker> = FORMAT_LEAK_MARKERS
): FormatLeak | null => {
  if (structuredCalls > 0 || typeof text !== "string") return null
  // Markup the reply only quotes (a snippet of a README, a page it read) was neither a call nor a leak.
  const found = findToolCallMarkup(withoutQuotes(text), markers)
  return found === null ? null : { marker: found.id, family: found.family }
}
