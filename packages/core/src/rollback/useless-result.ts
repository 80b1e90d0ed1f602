/**
 * Useless tool results (docs/rollback.md): the call ran but brought nothing back, so the turn is rolled
 * back and the model asked again instead of carrying an empty hand forward. Data: each rule
 * names the tools it applies to (patterns, `*` = any run, case-insensitive) and one matcher:
 *
 * - `prefix`: the output, leading whitespace ignored, starts with one of `texts` (case-insensitive);
 * - `empty`: the output is blank;
 * - `empty-json`: the output is JSON `[]`, `{}`, or an object in which every one of `fields`
 *   that is present is an empty array (and at least one is present), e.g. `{"organic": []}`.
 *
 * The first matching rule wins. Never throws.
 */
import { matchesAnyToolPattern } from "./tool-pattern.js"

export type ResultMatcher =
  | { readonly type: "prefix"; readonly texts: ReadonlyArray<string> }
  | { readonly type: "empty" }
  | { readonly type: "empty-json"; readonly fields: ReadonlyArray<string> }

export interface UselessResultRule {
  readonly id: string
  readonly tools: ReadonlyArray<string>
  readonly matcher: ResultMatcher
}

const SEARCH_TOOLS = ["*search*"]

export const DEFAULT_USELESS_RESULT_RULES: ReadonlyArray<UselessResultRule> = [
  { id: "unknown-tool", tools: ["*"], matcher: { type: "prefix", texts: ["Unknown tool:"] } },
  { id: "tool-error", tools: ["*"], matcher: { type: "prefix", texts: ["Error executing tool"] } },
  { id: "empty-search", tools: SEARCH_TOOLS, matcher: { type: "empty" } },
  { id: "empty-search", tools: SEARCH_TOOLS, matcher: { type: "empty-json", fields: ["organic", "results", "items", "hits"] } },
  { id: "empty-search", tools: SEARCH_TOOLS, matcher: { type: "prefix", texts: ["No results found", "No search results"] } }
]

export interface ToolResultView {
  readonly tool: string
  /** What the tool returned (for a failed tool, its error text). */
  readonly output: string
}

export interface UselessResult {
  readonly rule: string
  readonly tool: string
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isEmptyJson = (text: string, fields: ReadonlyArray<string>): boolean => {
  const t = text.trim()
  if (!t.startsWith("{") && !t.startsWith("[")) return false
  const value = parseJson(t)
  if (Array.isArray(value)) return value.length === 0
  if (value === null || typeof value !== "object") return false
  const record = value as Record<string, unknown>
  if (Object.keys(record).length === 0) return true
  const present = fields.filter((f) => Object.prototype.hasOwnProperty.call(record, f))
  return present.length > 0 && present.every((f) => Array.isArray(record[f]) && (record[f] as Array<unknown>).length === 0)
}

const matches = (matcher: ResultMatcher, output: string): boolean => {
  switch (matcher.type) {
    case "prefix": {
      const head = output.trimStart().toLowerCase()
      return matcher.texts.some((t) => t.length > 0 && head.startsWith(t.toLowerCase()))
    }
    case "empty":
      return output.trim() === ""
    case "empty-json":
      return isEmptyJson(output, matcher.fields)
  }
}

/** The first useless-result rule a tool result matches (empty output, empty JSON, a known error prefix…), or null. */
export const matchUselessResult = (
  result: ToolResultView,
  rules: ReadonlyArray<UselessResultRule> = DEFAULT_USELESS_RESULT_RULES
): UselessResult | null => {
  const output = typeof result.output === "string" ? result.output : ""
  for (const rule of rules) {
    if (matchesAnyToolPattern(rule.tools, result.tool) && matches(rule.matcher, output)) return { rule: rule.id, tool: result.tool }
  }
  return null
}
