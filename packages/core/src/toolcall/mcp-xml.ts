/**
 * MCP-XML tool calls written in plain text (Cline, MiroThinker, Qwen-style prompts):
 *
 *   <use_mcp_tool>
 *     <server_name>tool-python</server_name>
 *     <tool_name>run_python_code</tool_name>
 *     <arguments>{"code_block": "print(1)"}</arguments>
 *   </use_mcp_tool>
 *
 * Models stop mid-call, so every closing tag is optional: a block ends at its closing tag, at the
 * next `<use_mcp_tool>`, or at the end of the text; a field ends at its closing tag, at the next
 * field's opening tag, or at the end of its block. Tags are case-insensitive and may carry
 * whitespace inside the angle brackets.
 */

export interface McpXmlBlock {
  readonly server?: string
  readonly tool?: string
  /** Argument text as written (code fences removed), or undefined when the block has none. */
  readonly argumentsText?: string
}

const BLOCK_OPEN = /<\s*use_mcp_tool\s*>/gi
const BLOCK_CLOSE = /<\s*\/\s*use_mcp_tool\s*>/gi
const FIELD_NAMES = ["server_name", "tool_name", "arguments"] as const
type FieldName = (typeof FIELD_NAMES)[number]
const ANY_FIELD_OPEN = /<\s*(?:server_name|tool_name|arguments)\s*>/gi

/** First match of `re` at or after `from` and before `to`, as [start, end], or null. */
const findFrom = (text: string, re: RegExp, from: number, to: number = text.length): [number, number] | null => {
  const g = new RegExp(re.source, "gi")
  g.lastIndex = from
  const m = g.exec(text)
  if (m === null || m.index >= to) return null
  return [m.index, m.index + m[0].length]
}

const fieldValue = (text: string, name: FieldName, start: number, end: number): string | undefined => {
  const open = findFrom(text, new RegExp(`<\\s*${name}\\s*>`), start, end)
  if (open === null) return undefined
  const close = findFrom(text, new RegExp(`<\\s*\\/\\s*${name}\\s*>`), open[1], end)
  const nextField = findFrom(text, ANY_FIELD_OPEN, open[1], end)
  const stop = Math.min(close?.[0] ?? end, nextField?.[0] ?? end)
  return text.slice(open[1], stop)
}

/** ```json … ``` around the argument object is a common slip; keep only the inside. */
const stripCodeFence = (text: string): string => {
  const m = /^```[\w-]*\s*\n?([\s\S]*?)\n?\s*(?:```)?\s*$/.exec(text)
  return m !== null && text.startsWith("```") ? (m[1] ?? "") : text
}

const cleanName = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const v = value.trim()
  return v === "" ? undefined : v
}

/** Every `<use_mcp_tool>` block in the text, in order. Never throws. */
export const findMcpXmlBlocks = (text: string): ReadonlyArray<McpXmlBlock> => {
  const blocks: Array<McpXmlBlock> = []
  const opens: Array<[number, number]> = []
  for (let at = findFrom(text, BLOCK_OPEN, 0); at !== null; at = findFrom(text, BLOCK_OPEN, at[1])) opens.push(at)
  for (let i = 0; i < opens.length; i++) {
    const start = opens[i]![1]
    const nextOpen = i + 1 < opens.length ? opens[i + 1]![0] : text.length
    const close = findFrom(text, BLOCK_CLOSE, start, nextOpen)
    const end = close?.[0] ?? nextOpen
    const server = cleanName(fieldValue(text, "server_name", start, end))
    const tool = cleanName(fieldValue(text, "tool_name", start, end))
    const args = fieldValue(text, "arguments", start, end)
    blocks.push({
      ...(server !== undefined ? { server } : {}),
      ...(tool !== undefined ? { tool } : {}),
      ...(args !== undefined ? { argumentsText: stripCodeFence(args.trim()) } : {})
    })
  }
  return blocks
}
