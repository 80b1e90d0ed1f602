/**
 * Retry configuration: `retry.<budget>.<field>` at the top level and
 * `provider.<id>.retry.<budget>.<field>` per provider, merged field by field over the defaults.
 * Validation is a pure function returning every problem, each naming its path.
 */
import {
  DEFAULT_RETRY_BUDGETS,
  MAX_RETRIES_LIMIT,
  RETRY_BUDGET_NAMES,
  type RetryBudget,
  type RetryBudgetName,
  type RetryBudgets,
  type RetryMode
} from "./budget.js"
import { DEFAULT_OVERLOADED_IMMEDIATE_RETRIES } from "./special-cases.js"

export interface RetryBudgetConfig {
  readonly mode?: RetryMode
  readonly maxRetries?: number
  readonly deadlineMs?: number
  /** `true` removes the deadline; cannot be combined with `deadlineMs` in the same section. */
  readonly noDeadline?: boolean
  readonly initialDelayMs?: number
  readonly maxDelayMs?: number
  readonly jitterRatio?: number
}

/** One `retry` section: a patch per budget, plus the silent-overload count (docs/retry.md). */
export type RetryConfig = { readonly [K in RetryBudgetName]?: RetryBudgetConfig } & {
  readonly overloadedImmediateRetries?: number
  /** Jitter for every budget of this section that sets none of its own (like MiMo Code's top-level `jitterRatio`). */
  readonly jitterRatio?: number
  /** HTTP statuses retried as server errors for this provider (e.g. 404 for adapters that use it for passing failures). */
  readonly retryableStatuses?: ReadonlyArray<number>
}

const OVERLOADED_KEY = "overloadedImmediateRetries"
const SECTION_KEYS = [OVERLOADED_KEY, "jitterRatio", "retryableStatuses"]

const BUDGET_FIELDS = ["mode", "maxRetries", "deadlineMs", "noDeadline", "initialDelayMs", "maxDelayMs", "jitterRatio"] as const

const applyBudget = (base: RetryBudget, patch: RetryBudgetConfig | undefined): RetryBudget => {
  if (patch === undefined) return base
  // deadlineMs / noDeadline are one setting written two ways; a later layer's either form wins.
  const deadlineMs = patch.noDeadline === true ? null : patch.deadlineMs ?? base.deadlineMs
  return {
    mode: patch.mode ?? base.mode,
    maxRetries: patch.maxRetries ?? base.maxRetries,
    deadlineMs,
    initialDelayMs: patch.initialDelayMs ?? base.initialDelayMs,
    maxDelayMs: patch.maxDelayMs ?? base.maxDelayMs,
    jitterRatio: patch.jitterRatio ?? base.jitterRatio
  }
}

/** A section's patch for one budget, its section-wide `jitterRatio` filled in where the budget sets none. */
const sectionPatch = (section: RetryConfig | undefined, name: RetryBudgetName): RetryBudgetConfig | undefined => {
  const own = section?.[name]
  if (section?.jitterRatio === undefined) return own
  return { ...own, jitterRatio: own?.jitterRatio ?? section.jitterRatio }
}

/** defaults ← top-level `retry` ← `provider.<id>.retry`, one field at a time. */
export const mergeRetryConfig = (defaults: RetryBudgets, top?: RetryConfig, providerOverride?: RetryConfig): RetryBudgets => {
  const out = {} as Record<RetryBudgetName, RetryBudget>
  for (const name of RETRY_BUDGET_NAMES) {
    out[name] = applyBudget(applyBudget(defaults[name], sectionPatch(top, name)), sectionPatch(providerOverride, name))
  }
  return out
}

export type RetryConfigValidation =
  | { readonly ok: true; readonly config: RetryConfig }
  | { readonly ok: false; readonly errors: ReadonlyArray<string> }

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  u !== null && typeof u === "object" && !Array.isArray(u)

const isIntIn = (u: unknown, min: number, max: number): u is number =>
  typeof u === "number" && Number.isInteger(u) && u >= min && u <= max

const isNonNegative = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u) && u >= 0

/** Check a `retry` section (`path` names it in messages, e.g. `provider.openai.retry`). */
export const validateRetryConfig = (input: unknown, path = "retry"): RetryConfigValidation => {
  if (input === undefined) return { ok: true, config: {} }
  if (!isPlainObject(input)) return { ok: false, errors: [`${path}: must be an object`] }
  const errors: Array<string> = []
  const config: Partial<Record<RetryBudgetName, RetryBudgetConfig>> & {
    overloadedImmediateRetries?: number
    jitterRatio?: number
    retryableStatuses?: ReadonlyArray<number>
  } = {}
  for (const [name, section] of Object.entries(input)) {
    const at = `${path}.${name}`
    if (name === OVERLOADED_KEY) {
      if (isIntIn(section, 0, MAX_RETRIES_LIMIT)) config.overloadedImmediateRetries = section
      else errors.push(`${at}: must be an integer from 0 to ${MAX_RETRIES_LIMIT}`)
      continue
    }
    if (name === "jitterRatio") {
      if (typeof section === "number" && section >= 0 && section <= 1) config.jitterRatio = section
      else errors.push(`${at}: must be a number from 0 to 1`)
      continue
    }
    if (name === "retryableStatuses") {
      if (Array.isArray(section) && section.every((v) => isIntIn(v, 100, 599))) config.retryableStatuses = section as ReadonlyArray<number>
      else errors.push(`${at}: must be a list of HTTP statuses (integers from 100 to 599)`)
      continue
    }
    if (!(RETRY_BUDGET_NAMES as ReadonlyArray<string>).includes(name)) {
      errors.push(`${at}: unknown budget (expected one of ${RETRY_BUDGET_NAMES.join(", ")}, or ${SECTION_KEYS.join(", ")})`)
      continue
    }
    const checked = validateBudget(section, at, errors)
    if (checked !== undefined) config[name as RetryBudgetName] = checked
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config }
}

const validateBudget = (section: unknown, at: string, errors: Array<string>): RetryBudgetConfig | undefined => {
  if (!isPlainObject(section)) {
    errors.push(`${at}: must be an object`)
    return undefined
  }
  const before = errors.length
  const out: { -readonly [K in keyof RetryBudgetConfig]: RetryBudgetConfig[K] } = {}
  for (const [field, value] of Object.entries(section)) {
    const f = `${at}.${field}`
    switch (field) {
      case "mode":
        if (value === "bounded" || value === "persistent") out.mode = value
        else errors.push(`${f}: must be "bounded" or "persistent"`)
        break
      case "maxRetries":
        if (isIntIn(value, 0, MAX_RETRIES_LIMIT)) out.maxRetries = value
        else errors.push(`${f}: must be an integer from 0 to ${MAX_RETRIES_LIMIT}`)
        break
      case "noDeadline":
        if (typeof value === "boolean") out.noDeadline = value
        else errors.push(`${f}: must be a boolean`)
        break
      case "deadlineMs":
      case "initialDelayMs":
      case "maxDelayMs":
        if (isNonNegative(value)) out[field] = value
        else errors.push(`${f}: must be a number >= 0`)
        break
      case "jitterRatio":
        if (typeof value === "number" && value >= 0 && value <= 1) out.jitterRatio = value
        else errors.push(`${f}: must be a number from 0 to 1`)
        break
      default:
        errors.push(`${f}: unknown field (expected one of ${BUDGET_FIELDS.join(", ")})`)
    }
  }
  if (section["deadlineMs"] !== undefined && section["noDeadline"] === true) {
    errors.push(`${at}: deadlineMs and noDeadline are mutually exclusive`)
  }
  return errors.length === before ? out : undefined
}

export type RetryBudgetsResolution =
  | {
      readonly ok: true
      readonly budgets: RetryBudgets
      readonly overloadedImmediateRetries: number
      /** The provider's own list, else the top-level one, else none. */
      readonly retryableStatuses: ReadonlyArray<number>
    }
  | { readonly ok: false; readonly errors: ReadonlyArray<string> }

/** The part of a loopguard config file this module reads. */
export interface RetryConfigRoot {
  readonly retry?: unknown
  readonly provider?: unknown
}

/**
 * Budgets for one provider from a whole config object: validates `retry` and
 * `provider.<id>.retry`, then merges them over `defaults` (the overload count likewise).
 */
export const resolveRetryBudgets = (
  root: RetryConfigRoot,
  providerId?: string,
  defaults: RetryBudgets = DEFAULT_RETRY_BUDGETS
): RetryBudgetsResolution => {
  const top = validateRetryConfig(root.retry, "retry")
  const providers = isPlainObject(root.provider) ? root.provider : {}
  const entry = providerId !== undefined ? providers[providerId] : undefined
  const own = validateRetryConfig(isPlainObject(entry) ? entry["retry"] : undefined, `provider.${providerId ?? ""}.retry`)
  const errors = [...(top.ok ? [] : top.errors), ...(own.ok ? [] : own.errors)]
  if (!top.ok || !own.ok) return { ok: false, errors }
  return {
    ok: true,
    budgets: mergeRetryConfig(defaults, top.config, own.config),
    overloadedImmediateRetries:
      own.config.overloadedImmediateRetries ?? top.config.overloadedImmediateRetries ?? DEFAULT_OVERLOADED_IMMEDIATE_RETRIES,
    retryableStatuses: own.config.retryableStatuses ?? top.config.retryableStatuses ?? []
  }
}
