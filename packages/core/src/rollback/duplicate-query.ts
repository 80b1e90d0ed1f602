/**
 * Duplicate-query detection (docs/rollback.md): a model that searches the same thing again is spinning.
 * Per agent and tool, a call's fingerprint is built from the tool's key arguments (`query-keys.ts`),
 * each string folded (NFKC, trimmed, whitespace collapsed, lower case) and the picked arguments
 * written as sorted-key JSON, so key order, spacing and case do not make a query new.
 * When a rule's key arguments are all absent, the fingerprint falls back to every argument.
 *
 * Protocol: `isDuplicate` / `detectDuplicateQuery` before execution; `recordExecuted` only after
 * the call really ran — a rolled-back call must not poison the record.
 * State is plain JSON: `{ counts: { '["agent","tool","fingerprint"]': n } }`.
 */
import { stableJson } from "../model/message.js"
import { DEFAULT_QUERY_KEY_RULES } from "./query-keys.js"
import type { QueryKeyRule } from "./query-keys.js"
import { matchesAnyToolPattern } from "./tool-pattern.js"

export interface DuplicateQueryOptions {
  readonly rules: ReadonlyArray<QueryKeyRule>
  /** Tools no rule matches: fingerprint all their arguments, or never deduplicate them. */
  readonly unlistedTools: "all" | "none"
}

export const DEFAULT_DUPLICATE_QUERY_OPTIONS: DuplicateQueryOptions = {
  rules: DEFAULT_QUERY_KEY_RULES,
  unlistedTools: "all"
}

export type DuplicateQueryState = {
  readonly counts: Readonly<Record<string, number>>
}

export interface QueryCall {
  /** The agent making the call (main agent, a sub-agent's name…): each has its own record. */
  readonly agent: string
  readonly tool: string
  /** Parsed arguments; `{ error, raw }` and non-objects are fingerprinted as they are. */
  readonly arguments: unknown
}

/** Empty duplicate-query state: no query seen yet. */
export const initDuplicateQueries = (): DuplicateQueryState => ({ counts: {} })

const MAX_DEPTH = 32

/** JSON-safe copy with strings folded; never throws (cycles, bigint, functions are tamed). */
const fold = (value: unknown, seen: Set<object>, depth: number): unknown => {
  if (typeof value === "string") return value.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase()
  if (typeof value === "bigint") return value.toString()
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (typeof value !== "object" || value === null) return typeof value === "boolean" || value === null ? value : null
  if (seen.has(value) || depth > MAX_DEPTH) return "[cycle]"
  seen.add(value)
  try {
    if (Array.isArray(value)) return value.map((v) => fold(v, seen, depth + 1))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fold(v, seen, depth + 1)]))
  } finally {
    seen.delete(value)
  }
}

const ruleFor = (tool: string, options: DuplicateQueryOptions): QueryKeyRule["keys"] =>
  options.rules.find((r) => matchesAnyToolPattern(r.tools, tool))?.keys ?? options.unlistedTools

const pick = (args: unknown, keys: ReadonlyArray<string>): Record<string, unknown> | null => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return null
  const wanted = new Set(keys.map((k) => k.toLowerCase()))
  const picked = Object.entries(args).filter(([k]) => wanted.has(k.toLowerCase()))
  return picked.length === 0 ? null : Object.fromEntries(picked.map(([k, v]) => [k.toLowerCase(), v]))
}

/** The call's fingerprint, or null when its tool is never deduplicated. Never throws. */
export const queryFingerprint = (
  tool: string,
  args: unknown,
  options: Partial<DuplicateQueryOptions> = {}
): string | null => {
  const opts: DuplicateQueryOptions = { ...DEFAULT_DUPLICATE_QUERY_OPTIONS, ...options }
  try {
    const keys = ruleFor(tool, opts)
    if (keys === "none") return null
    const chosen = keys === "all" ? args : (pick(args, keys) ?? args)
    return stableJson(fold(chosen, new Set(), 0))
  } catch {
    return null
  }
}

const slot = (agent: string, tool: string, fingerprint: string): string =>
  JSON.stringify([agent, tool.toLowerCase(), fingerprint])

/** How many times this query has already run for this agent and tool. */
export const executedCount = (state: DuplicateQueryState, call: QueryCall, options: Partial<DuplicateQueryOptions> = {}): number => {
  const fp = queryFingerprint(call.tool, call.arguments, options)
  if (fp === null) return 0
  const key = slot(call.agent, call.tool, fp)
  return Object.prototype.hasOwnProperty.call(state.counts, key) ? (state.counts[key] ?? 0) : 0
}

/** Check before executing: has the same query already been executed? */
export const isDuplicate = (state: DuplicateQueryState, call: QueryCall, options: Partial<DuplicateQueryOptions> = {}): boolean =>
  executedCount(state, call, options) > 0

/** Record a call that was executed. Calls of tools that are never deduplicated leave the state as is. */
export const recordExecuted = (
  state: DuplicateQueryState,
  call: QueryCall,
  options: Partial<DuplicateQueryOptions> = {}
): DuplicateQueryState => {
  const fp = queryFingerprint(call.tool, call.arguments, options)
  if (fp === null) return state
  const key = slot(call.agent, call.tool, fp)
  return { counts: { ...state.counts, [key]: executedCount(state, call, options) + 1 } }
}

/**
 * `recordExecuted` for a caller that owns its record and keeps it for a whole run: the count is
 * bumped in place, so a run of n steps does not copy the record n times.
 */
export const recordExecutedInPlace = (
  state: { readonly counts: Record<string, number> },
  call: QueryCall,
  options: Partial<DuplicateQueryOptions> = {}
): void => {
  const fp = queryFingerprint(call.tool, call.arguments, options)
  if (fp === null) return
  state.counts[slot(call.agent, call.tool, fp)] = executedCount(state, call, options) + 1
}

export interface DuplicateQuery {
  readonly agent: string
  readonly tool: string
  readonly fingerprint: string
  /** Executions recorded so far. */
  readonly count: number
}

/** The repeat a call makes of a query already run (same tool, same normalized arguments), or null. */
export const detectDuplicateQuery = (
  state: DuplicateQueryState,
  call: QueryCall,
  options: Partial<DuplicateQueryOptions> = {}
): DuplicateQuery | null => {
  const fingerprint = queryFingerprint(call.tool, call.arguments, options)
  if (fingerprint === null) return null
  const count = executedCount(state, call, options)
  return count > 0 ? { agent: call.agent, tool: call.tool, fingerprint, count } : null
}
