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
 * next `<use_mcp_tool>`, or at the end of the text; a name field ends at its closing tag or the
 * next tag. Tags are case-insensitive and may carry whitespace inside the angle brackets.
 *
 * Arguments are read as JSON, not as text up to the next tag: an argument string may well hold
 * `</arguments>` or `<use_mcp_tool>` (a file that documents this very format), and cutting there
 * would run a different call than the one written. A JSON object ends at its balanced closing
 * brace; one that never closes runs to the end of the block and is left for the argument parser
 * to refuse as cut off.
 */

export interface McpXmlBlock {
  readonly server?: string
  readonly tool?: string
  /** Argument text as written (code fences removed), or undefined when the block has none. */
  readonly argumentsText?: string
  /** Offsets of the whole block in the text: [start, end). */
  readonly start: number
  readonly end: number
}

const BLOCK_OPEN = /<\s*use_mcp_tool\s*>/i
const BLOCK_CLOSE = /<\s*\/\s*use_mcp_tool\s*>/i
const FIELD_OPEN = /<\s*(server_name|tool_name|arguments)\s*>/i
const ANY_TAG = /<\s*\/?\s*[a-z_]+\s*>/i

/** First match of `re` at or after `from`, as [start, end], or null. */
const findFrom = (text: string, re: RegExp, from: number): [number, number] | null => {
  const g = new RegExp(re.source, "gi")
  g.lastIndex = from
  const m = g.exec(text)
  return m === null ? null : [m.index, m.index + m[0].length]
}

/**
 * Where a JSON object or array starting at `from` closes (exclusive), honouring strings; null when
 * it never does, or a bracket closes out of order (`{"a": "x"], …`): where it was meant to end is
 * then unknown, and the reader takes the field as written for the argument parser to judge.
 */
export const balancedJsonEnd = (text: string, from: number): number | null => {
  const open: Array<string> = []
  let quote: string | null = null
  for (let i = from; i < text.length; i++) {
    const c = text[i]!
    if (quote !== null) {
      if (c === "\\") i++
      else if (c === quote) quote = null
      continue
    }
    if (c === '"') quote = c
    else if (c === "{" || c === "[") open.push(c === "{" ? "}" : "]")
    else if (c === "}" || c === "]") {
      if (open.pop() !== c) return null
      if (open.length === 0) return i + 1
    }
  }
  return null
}

const cleanName = (value: string): string | undefined => {
  const v = value.trim()
  return v === "" ? undefined : v
}

/** A name field's value: up to its closing tag or the next tag, whichever comes first. */
const readName = (text: string, from: number, limit: number): { value: string; next: number } => {
  const tag = findFrom(text, ANY_TAG, from)
  const stop = tag === null || tag[0] > limit ? limit : tag[0]
  const closes = tag !== null && tag[0] <= limit && /^<\s*\//.test(text.slice(tag[0], tag[1]))
  return { value: text.slice(from, stop), next: closes ? tag![1] : stop }
}

/** The arguments field from just after `<arguments>`: JSON read to its balanced end, code fences allowed. */
const readArguments = (text: string, from: number, limit: number): { value: string; next: number } => {
  let at = from
  while (at < limit && /\s/.test(text[at]!)) at++
  const fence = /^```[\w-]*[ \t]*\r?\n?/.exec(text.slice(at, Math.min(limit, at + 40)))
  if (fence) at += fence[0].length
  while (at < limit && /\s/.test(text[at]!)) at++
  const close = findFrom(text, /<\s*\/\s*arguments\s*>/i, at)
  if (text[at] === "{" || text[at] === "[") {
    const end = balancedJsonEnd(text, at)
    // Not closed, or closed out of order: the field as written, to its closing tag when it has one.
    if (end === null) {
      const stop = close === null || close[0] > limit ? limit : close[0]
      return { value: text.slice(at, stop).replace(/\s*```\s*$/, "").trimEnd(), next: stop === limit ? limit : close![1] }
    }
    let next = end
    const after = /^\s*(?:```)?\s*/.exec(text.slice(end))
    if (after) next += after[0].length
    const closing = findFrom(text, /<\s*\/\s*arguments\s*>/i, next)
    if (closing !== null && closing[0] === next) next = closing[1]
    // More written after the object, before its closing tag: the field is not one object, and is
    // taken as written for the argument parser to refuse (its first object alone was not the call).
    else if (closing !== null && closing[0] <= limit) return { value: text.slice(at, closing[0]).trimEnd(), next: closing[1] }
    return { value: text.slice(at, end), next }
  }
  const stop = close === null ? limit : Math.min(close[0], limit)
  const raw = text.slice(at, stop).replace(/\s*```\s*$/, "")
  return { value: raw.trim(), next: close === null || close[0] > limit ? limit : close[1] }
}

/** One block from just after its opening tag: fields in any order until the block closes. */
const readBlock = (text: string, start: number, bodyFrom: number): McpXmlBlock => {
  let at = bodyFrom
  let server: string | undefined
  let tool: string | undefined
  let args: string | undefined
  while (at < text.length) {
    const open = findFrom(text, FIELD_OPEN, at)
    const close = findFrom(text, BLOCK_CLOSE, at)
    const nextBlock = findFrom(text, BLOCK_OPEN, at)
    const fieldFirst = open !== null && (close === null || open[0] < close[0]) && (nextBlock === null || open[0] < nextBlock[0])
    if (!fieldFirst) {
      const end = close !== null && (nextBlock === null || close[0] < nextBlock[0]) ? close[1] : nextBlock !== null ? nextBlock[0] : text.length
      return { ...named(server, tool, args), start, end }
    }
    const limit = Math.min(nextBlock?.[0] ?? text.length, text.length)
    const field = text.slice(open[0], open[1]).replace(/[<>\s]/g, "").toLowerCase()
    if (field === "arguments") {
      const r = readArguments(text, open[1], limit)
      args = r.value
      at = r.next
    } else {
      const r = readName(text, open[1], limit)
      if (field === "server_name") server = cleanName(r.value)
      else tool = cleanName(r.value)
      at = r.next
    }
  }
  return { ...named(server, tool, args), start, end: text.length }
}

const named = (server: string | undefined, tool: string | undefined, args: string | undefined) => ({
  ...(server !== undefined ? { server } : {}),
  ...(tool !== undefined ? { tool } : {}),
  ...(args !== undefined ? { argumentsText: args } : {})
})

/** Every `<use_mcp_tool>` block in the text, in order. Never throws. */
export const findMcpXmlBlocks = (text: string): ReadonlyArray<McpXmlBlock> => {
  const blocks: Array<McpXmlBlock> = []
  let at = 0
  for (let open = findFrom(text, BLOCK_OPEN, at); open !== null; open = findFrom(text, BLOCK_OPEN, at)) {
    const block = readBlock(text, open[0], open[1])
    blocks.push(block)
    at = Math.max(block.end, open[1])
  }
  return blocks
}
