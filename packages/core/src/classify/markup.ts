/**
 * Tool-call markup that models leak into plain text when they write a call instead of using the
 * structured interface. Kept as data: a new model family means one more row, not new code.
 *
 * Patterns tolerate XML namespaces (`<ns:invoke name=`) and attribute/whitespace variants, because
 * the same family is spelled slightly differently by each serving stack.
 */

export interface ToolCallMarker {
  /** Stable identifier, used in classification reasons and incidents. */
  readonly id: string
  /** Which model family or protocol writes it (documentation only). */
  readonly family: string
  readonly pattern: RegExp
}

export const TOOL_CALL_MARKERS: ReadonlyArray<ToolCallMarker> = [
  { id: "invoke", family: "Anthropic-style XML / MiniMax", pattern: /<(?:[\w-]+:)?invoke\s+name\s*=/i },
  { id: "function_calls", family: "Anthropic-style XML", pattern: /<(?:[\w-]+:)?function_calls\s*>/i },
  { id: "tool_call", family: "Hermes / Qwen / GLM / Seed", pattern: /<(?:[\w-]+:)?tool_call(?:\s[^>]*)?>/i },
  { id: "tool_calls", family: "Mistral-style XML", pattern: /<tool_calls\s*>/i },
  { id: "use_mcp_tool", family: "MCP XML (Cline, MiroThinker)", pattern: /<use_mcp_tool\s*>/i },
  { id: "function=", family: "Llama 3.x / Qwen3-Coder", pattern: /<function\s*=\s*[\w.-]+/i },
  { id: "tool_use", family: "Anthropic content block written as text", pattern: /<tool_use\s*>/i },
  { id: "kimi", family: "Kimi K2 special tokens", pattern: /<\|tool_calls?_(?:section_)?begin\|>/ },
  { id: "deepseek", family: "DeepSeek V3 special tokens", pattern: /<｜tool▁calls?▁begin｜>/ },
  { id: "python_tag", family: "Llama 3.1 built-in tools", pattern: /<\|python_tag\|>/ },
  { id: "mistral", family: "Mistral [TOOL_CALLS]", pattern: /\[TOOL_CALLS\]/ },
  { id: "harmony", family: "gpt-oss harmony channel", pattern: /<\|channel\|>\s*commentary\s+to=functions\./ },
  { id: "json-tool_calls", family: "OpenAI Chat Completions JSON", pattern: /"tool_calls"\s*:\s*\[/ },
  { id: "json-function_call", family: "OpenAI legacy function_call JSON", pattern: /"function_call"\s*:\s*\{/ }
]

/** The first marker found in the text, or null. Never throws. */
export const findToolCallMarkup = (
  text: string,
  markers: ReadonlyArray<ToolCallMarker> = TOOL_CALL_MARKERS
): ToolCallMarker | null => {
  if (text.length === 0) return null
  for (const marker of markers) {
    if (marker.pattern.test(text)) return marker
  }
  return null
}

/** Whether text carries tool-call markup a model wrote instead of a real call. */
export const hasToolCallMarkup = (text: string, markers: ReadonlyArray<ToolCallMarker> = TOOL_CALL_MARKERS): boolean =>
  findToolCallMarkup(text, markers) !== null
