/**
 * In-place repair of a parsed tool call, with no retry (docs/rollback.md): the model was nearly right, so
 * fix the call instead of spending a turn. Everything it knows is data in a `RepairTable`; the
 * code only applies the table. Steps, in this order (each fix is listed in `repairs`):
 *
 * 1. tool name alias (`python` → `run_python_code`), unless the server map lists the name as a
 *    real tool;
 * 2. server name: a call that names a server different from the one the system prompt lists for
 *    the tool is moved to the listed one (only tools the map knows unambiguously);
 * 3. `null` arguments dropped (schemas reject null for optional fields) — before aliases, so
 *    `{ code: "x", code_block: null }` still ends as `{ code_block: "x" }`;
 * 4. argument aliases per tool (`code` → `code_block`), only when the right name is absent, so an
 *    argument the model did name correctly is never overwritten;
 * 5. defaults per tool for arguments still missing (`sandbox_id` = "default").
 *
 * Arguments that failed to parse (`{ error, raw }`) get steps 1–2 only. Pure; never throws.
 */
import { ownValue } from "./tool-call.js"
import type { ParsedToolCall } from "./tool-call.js"
import type { ServerMap } from "./server-map.js"

export interface ToolRepairRule {
  /** Wrong argument name → right one. Several wrong names may map to one right name. */
  readonly aliases?: Readonly<Record<string, string>>
  /** Argument → value used when the call leaves it out (or sends null). */
  readonly defaults?: Readonly<Record<string, unknown>>
}

export interface RepairTable {
  /** Wrong tool name → right one. */
  readonly toolNameAliases: Readonly<Record<string, string>>
  /** Per tool (by exact, post-alias name). */
  readonly tools: Readonly<Record<string, ToolRepairRule>>
  readonly dropNullArguments: boolean
  readonly fixServerNames: boolean
  /** Also set the server on calls that name none (off: Chat/Responses calls have no server). */
  readonly fillMissingServer: boolean
}

/** An example table: MiroThinker's most frequent slips. It is data; extend or replace it. */
export const DEFAULT_REPAIR_TABLE: RepairTable = {
  toolNameAliases: { python: "run_python_code", python_code: "run_python_code" },
  tools: {
    run_python_code: { aliases: { code: "code_block" }, defaults: { sandbox_id: "default" } },
    scrape_and_extract_info: { aliases: { description: "info_to_extract", introduction: "info_to_extract" } }
  },
  dropNullArguments: true,
  fixServerNames: true,
  fillMissingServer: false
}

export interface RepairResult {
  readonly call: ParsedToolCall
  /** One line per fix, e.g. `argument "code" → "code_block"`. Empty when nothing changed. */
  readonly repairs: ReadonlyArray<string>
}

const q = (s: string): string => JSON.stringify(s)

const repairName = (call: ParsedToolCall, table: RepairTable, serverMap: ServerMap, repairs: Array<string>): string => {
  const alias = ownValue(table.toolNameAliases, call.name)
  if (alias === undefined || alias === call.name || ownValue(serverMap, call.name) !== undefined) return call.name
  repairs.push(`tool name ${q(call.name)} → ${q(alias)}`)
  return alias
}

const repairServer = (
  call: ParsedToolCall,
  name: string,
  table: RepairTable,
  serverMap: ServerMap,
  repairs: Array<string>
): string | undefined => {
  const listed = ownValue(serverMap, name)
  if (!table.fixServerNames || listed === undefined || call.server === listed) return call.server
  if (call.server === undefined) {
    if (!table.fillMissingServer) return undefined
    repairs.push(`server set to ${q(listed)} for ${q(name)}`)
    return listed
  }
  repairs.push(`server ${q(call.server)} → ${q(listed)} for ${q(name)}`)
  return listed
}

const repairArguments = (
  args: Readonly<Record<string, unknown>>,
  rule: ToolRepairRule | undefined,
  table: RepairTable,
  repairs: Array<string>
): Record<string, unknown> => {
  const out = new Map<string, unknown>(Object.entries(args))
  if (table.dropNullArguments) {
    for (const [key, value] of out) {
      if (value === null) {
        out.delete(key)
        repairs.push(`dropped null argument ${q(key)}`)
      }
    }
  }
  for (const [wrong, right] of Object.entries(rule?.aliases ?? {})) {
    if (wrong === right || !out.has(wrong) || out.has(right)) continue
    out.set(right, out.get(wrong))
    out.delete(wrong)
    repairs.push(`argument ${q(wrong)} → ${q(right)}`)
  }
  for (const [key, value] of Object.entries(rule?.defaults ?? {})) {
    if (out.has(key)) continue
    out.set(key, value)
    repairs.push(`default ${q(key)} = ${safeJson(value)}`)
  }
  // fromEntries (not assignment) so an argument named "__proto__" stays a plain key.
  return Object.fromEntries(out)
}

const safeJson = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}

/** A parsed call fixed against the repair table (tool name, MCP server, argument names), with the repairs made. */
export const repairToolCall = (
  call: ParsedToolCall,
  table: RepairTable = DEFAULT_REPAIR_TABLE,
  serverMap: ServerMap = {}
): RepairResult => {
  const repairs: Array<string> = []
  const name = repairName(call, table, serverMap, repairs)
  const server = repairServer(call, name, table, serverMap, repairs)
  const args = call.argumentsValid
    ? repairArguments(call.arguments as Readonly<Record<string, unknown>>, ownValue(table.tools, name), table, repairs)
    : call.arguments
  if (repairs.length === 0) return { call, repairs }
  const { server: _old, ...rest } = call
  return { call: { ...rest, ...(server !== undefined ? { server } : {}), name, arguments: args }, repairs }
}
