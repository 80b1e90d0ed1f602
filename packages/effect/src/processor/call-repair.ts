/**
 * In-place tool-call repair: the configured alias/default table merged over the
 * built-in one, and the tool→server map read from the system prompt (cached per prompt).
 */
import { type StreamPart } from "@loopguard/core/model"
import {
  DEFAULT_REPAIR_TABLE,
  repairToolCall,
  serverMapFromSystemPrompt,
  type RepairTable,
  type ServerMap
} from "@loopguard/core/toolcall"
import type { LoopguardConfig } from "../config/schema.js"

type ToolCallPart = Extract<StreamPart, { type: "tool-call" }>

/** In-place repair of a reply's tool calls against the declared tools, configured from the config. */
export const makeCallRepair = (config: LoopguardConfig) => {
  const table: RepairTable = {
    ...DEFAULT_REPAIR_TABLE,
    toolNameAliases: { ...DEFAULT_REPAIR_TABLE.toolNameAliases, ...config.repair.toolNameAliases },
    tools: { ...DEFAULT_REPAIR_TABLE.tools, ...(config.repair.tools as RepairTable["tools"]) },
    dropNullArguments: config.repair.dropNullArguments,
    fixServerNames: config.repair.fixServerNames
  }
  let cached: { system: string; map: ServerMap } | null = null
  const serverMap = (system: string | undefined): ServerMap => {
    if (system === undefined || system === "") return {}
    if (cached === null || cached.system !== system) cached = { system, map: serverMapFromSystemPrompt(system) }
    return cached.map
  }
  return {
    /**
     * The names a call may use for the offered tools: the tools' own, and every alias that the
     * repair renames to one of them (`python` → `run_python_code`), so a text call naming an alias
     * is found, renamed and run like a structured one.
     */
    callableNames: (offered: ReadonlySet<string>): Set<string> => {
      const names = new Set(offered)
      if (!config.repair.enabled) return names
      for (const [alias, target] of Object.entries(table.toolNameAliases)) if (offered.has(target)) names.add(alias)
      return names
    },
    apply: (part: ToolCallPart, system: string | undefined): { part: ToolCallPart; repairs: ReadonlyArray<string> } => {
      const input = part.input
      if (!config.repair.enabled || input === null || typeof input !== "object" || Array.isArray(input)) return { part, repairs: [] }
      const { call, repairs } = repairToolCall(
        {
          id: part.id,
          name: part.name,
          ...(part.server !== undefined ? { server: part.server } : {}),
          arguments: input as Record<string, unknown>,
          argumentsValid: true,
          argumentsRepaired: false,
          format: part.server !== undefined ? "mcp-xml" : "chat"
        },
        table,
        serverMap(system)
      )
      if (repairs.length === 0) return { part, repairs }
      return { part: { ...part, name: call.name, input: call.arguments, ...(call.server !== undefined ? { server: call.server } : {}) }, repairs }
    }
  }
}
