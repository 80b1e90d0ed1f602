/**
 * Retry configuration: `retry.<budget>.<field>` at the top level and
 * `provider.<id>.retry.<budget>.<field>` per provider, merged field by field over the defaults.
 * Validation is the config schema's (in @loopguard/effect); this module only merges.
 */
import {
  DEFAULT_RETRY_BUDGETS,
  KIND_BUDGETS,
  RETRY_BUDGET_NAMES,
  type RetryBudget,
  type RetryBudgetName,
  type RetryBudgets,
  type RetryMode
} from "./budget.js"
import { DEFAULT_OVERLOADED_IMMEDIATE_RETRIES } from "./special-cases.js"

export interface RetryBudgetConfig {
  readonly mode?: RetryMode | undefined
  readonly maxRetries?: number | undefined
  readonly deadlineMs?: number | undefined
  /** `true` removes the deadline; cannot be combined with `deadlineMs` in the same section. */
  readonly noDeadline?: boolean | undefined
  readonly initialDelayMs?: number | undefined
  readonly maxDelayMs?: number | undefined
  readonly jitterRatio?: number | undefined
}

/** One `retry` section: a patch per budget, plus the silent-overload count (docs/retry.md). */
export type RetryConfig = { readonly [K in RetryBudgetName]?: RetryBudgetConfig | undefined } & {
  readonly overloadedImmediateRetries?: number | undefined
  /** Jitter for every budget of this section that sets none of its own (like MiMo Code's top-level `jitterRatio`). */
  readonly jitterRatio?: number | undefined
  /** HTTP statuses retried as server errors for this provider (e.g. 404 for adapters that use it for passing failures). */
  readonly retryableStatuses?: ReadonlyArray<number> | undefined
}

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
    jitterRatio: patch.jitterRatio ?? base.jitterRatio,
    ...(base.everyPhase !== undefined ? { everyPhase: base.everyPhase } : {})
  }
}

const KIND_BUDGET_NAMES: ReadonlyArray<RetryBudgetName> = Object.values(KIND_BUDGETS)

/** The fields that say how many times or for how long: setting one hands the kind to its own budget. */
const LIMIT_FIELDS = ["mode", "maxRetries", "deadlineMs", "noDeadline"] as const

/**
 * A kind's budget whose limit a section sets (how many times, how long) governs its kind in every
 * phase: `retry.rateLimit.maxRetries: 1` then bounds a 429 before the first byte as well as one mid-stream.
 */
const markNamed = (budget: RetryBudget, name: RetryBudgetName, sections: ReadonlyArray<RetryConfig | undefined>): RetryBudget =>
  KIND_BUDGET_NAMES.includes(name) && sections.some((s) => LIMIT_FIELDS.some((f) => s?.[name]?.[f] !== undefined))
    ? { ...budget, everyPhase: true }
    : budget

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
    const merged = applyBudget(applyBudget(defaults[name], sectionPatch(top, name)), sectionPatch(providerOverride, name))
    out[name] = markNamed(merged, name, [top, providerOverride])
  }
  return out
}

export interface RetryBudgetsResolution {
  readonly budgets: RetryBudgets
  readonly overloadedImmediateRetries: number
  /** The provider's own list, else the top-level one, else none. */
  readonly retryableStatuses: ReadonlyArray<number>
}

/** The part of a loopguard config this module reads, already validated by the config's schema. */
export interface RetryConfigRoot {
  readonly retry?: RetryConfig | undefined
  readonly provider?: Readonly<Record<string, { readonly retry?: RetryConfig | undefined }>> | undefined
}

/**
 * Budgets for one provider from a validated config: `retry` and `provider.<id>.retry` merged
 * over `defaults` (the overload count and the retryable statuses likewise). It checks nothing:
 * the config's schema is the one validator, so this trusts what it is given.
 */
export const resolveRetryBudgets = (
  root: RetryConfigRoot,
  providerId?: string,
  defaults: RetryBudgets = DEFAULT_RETRY_BUDGETS
): RetryBudgetsResolution => {
  const top = root.retry ?? {}
  const own = (providerId !== undefined ? root.provider?.[providerId]?.retry : undefined) ?? {}
  return {
    budgets: mergeRetryConfig(defaults, top, own),
    overloadedImmediateRetries: own.overloadedImmediateRetries ?? top.overloadedImmediateRetries ?? DEFAULT_OVERLOADED_IMMEDIATE_RETRIES,
    retryableStatuses: own.retryableStatuses ?? top.retryableStatuses ?? []
  }
}
