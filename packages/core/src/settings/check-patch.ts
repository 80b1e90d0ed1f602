/**
 * A caller's partial settings laid over their defaults and checked without a schema library, for
 * entries that must not load Effect (the AI SDK helpers). Each field's kind comes from its
 * default (number, boolean, string list, nullable number, nested section), tightened by optional
 * numeric rules; problems read `path: Expected …` like the config file's own errors.
 */

/** Bounds of one numeric field. */
export interface NumberRule {
  readonly int?: boolean
  /** Exclusive lower bound. */
  readonly greaterThan?: number
  /** Inclusive lower bound. */
  readonly atLeast?: number
  /** Inclusive upper bound. */
  readonly atMost?: number
  /** Null is allowed too (e.g. "no limit"). */
  readonly nullable?: boolean
}

/** Numeric rules by field name, nested like the section. */
export type NumberRules = { readonly [field: string]: NumberRule | NumberRules }

export interface CheckedPatch<T> {
  readonly value: T
  readonly errors: ReadonlyArray<string>
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

const isNumberRule = (r: NumberRule | NumberRules | undefined): r is NumberRule =>
  r !== undefined && ["int", "greaterThan", "atLeast", "atMost", "nullable"].some((k) => k in r)

/** Non-negative integers unless a rule says otherwise: every count, limit and time in the config is one. */
const DEFAULT_RULE: NumberRule = { atLeast: 0 }

const numberProblem = (value: number, rule: NumberRule): string | null => {
  if (!Number.isFinite(value)) return "Expected a finite number"
  if (rule.int === true && !Number.isInteger(value)) return "Expected an integer"
  if (rule.greaterThan !== undefined && !(value > rule.greaterThan)) return `Expected a value greater than ${rule.greaterThan}`
  if (rule.atLeast !== undefined && rule.atMost !== undefined && (value < rule.atLeast || value > rule.atMost)) return `Expected a value between ${rule.atLeast} and ${rule.atMost}`
  if (rule.atLeast !== undefined && value < rule.atLeast) return `Expected a value greater than or equal to ${rule.atLeast}`
  if (rule.atMost !== undefined && value > rule.atMost) return `Expected a value less than or equal to ${rule.atMost}`
  return null
}

/** What is wrong with `value` where the default is `base`, or null. */
const fieldProblem = (base: unknown, value: unknown, rule: NumberRule, numeric: boolean): string | null => {
  // A field whose default is null ("none") takes a number or a name, or null again; one with a
  // numeric rule (a budget: `tokenBudget`) takes a number or null only.
  if (value === null) return base === null || rule.nullable === true ? null : typeof base === "number" ? "Expected number" : `Expected ${typeof base}`
  if (typeof base === "number" || (base === null && typeof value === "number")) return typeof value === "number" ? numberProblem(value, rule) : "Expected number"
  if (base === null) return numeric ? "Expected number or null" : typeof value === "string" ? null : "Expected number, string or null"
  if (typeof base === "boolean") return typeof value === "boolean" ? null : "Expected boolean"
  if (typeof base === "string") return typeof value === "string" ? null : "Expected string"
  if (Array.isArray(base)) return Array.isArray(value) && value.every((x) => typeof x === "string") ? null : "Expected an array of strings"
  return null
}

/**
 * `defaults` with `patch` laid over it field by field (nested sections merged the same way), and
 * every problem as `path: message`. A field the defaults do not have is an error, not ignored.
 */
export const checkPatch = <T extends object>(defaults: T, patch: unknown, path: string, rules: NumberRules = {}): CheckedPatch<T> => {
  if (patch === undefined) return { value: defaults, errors: [] }
  if (!isPlainObject(patch)) return { value: defaults, errors: [`${path}: Expected an object`] }
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) }
  const errors: Array<string> = []
  for (const [key, value] of Object.entries(patch)) {
    const at = `${path}.${key}`
    if (!(key in defaults)) {
      errors.push(`${at}: Expected no excess property`)
      continue
    }
    const base = (defaults as Record<string, unknown>)[key]
    const rule = rules[key]
    if (isPlainObject(base)) {
      const nested = checkPatch(base, value, at, isNumberRule(rule) || rule === undefined ? {} : rule)
      errors.push(...nested.errors)
      out[key] = nested.value
      continue
    }
    const problem = fieldProblem(base, value, isNumberRule(rule) ? rule : DEFAULT_RULE, isNumberRule(rule))
    if (problem !== null) errors.push(`${at}: ${problem}`)
    else out[key] = value
  }
  return { value: out as T, errors }
}
