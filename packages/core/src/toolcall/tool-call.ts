/**
 * One tool call as loopguard sees it after parsing, whatever wire format it came in.
 * Arguments that could not be read stay visible as `{ error, raw }` instead of vanishing,
 * so a broken call becomes an ordinary (rollback-able) error rather than a crash.
 */

export interface ToolArgumentsError {
  readonly error: string
  readonly raw: string
}

export type ToolCallFormat = "responses" | "chat" | "mcp-xml" | "tool-call-tag"

export interface ParsedToolCall {
  readonly id: string
  /** The MCP server, when the format names one (MCP-XML, or a split function name). */
  readonly server?: string
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>> | ToolArgumentsError
  /**
   * False when `arguments` is `{ error, raw }`. Kept as a flag because a real tool may well take
   * arguments named `error` and `raw`: the shape alone cannot tell the two apart.
   */
  readonly argumentsValid: boolean
  /** The argument JSON was not valid as written and had to be repaired. */
  readonly argumentsRepaired: boolean
  readonly format: ToolCallFormat
}

/** The arguments as an object, or null when they could not be parsed. */
export const validArguments = (call: ParsedToolCall): Readonly<Record<string, unknown>> | null =>
  call.argumentsValid ? (call.arguments as Readonly<Record<string, unknown>>) : null

/** Own-property lookup: a tool or argument called `constructor` must not find Object.prototype's. */
export const ownValue = <T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  record !== undefined && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined
