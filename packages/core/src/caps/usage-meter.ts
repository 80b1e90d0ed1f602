/**
 * What one agent has used so far: steps, tokens, cost. One meter per agent (a child agent gets
 * its own), serializable, fed once per finished step. Its numbers feed `capDecision` and the report.
 */
import type { Usage } from "../model/stream.js"
import type { CapUsage } from "./cap-policy.js"
import type { ModelPrice } from "./pricing.js"
import { costOf } from "./pricing.js"

export type UsageMeter = {
  readonly stepsUsed: number
  /** `estimated`: some output was estimated from what a cut or failed step streamed (`streamedUsage`). */
  readonly tokens: { readonly input: number; readonly output: number; readonly total: number; readonly estimated?: boolean }
  /**
   * Null as soon as one step could not be priced: a partial sum would understate the spend and
   * let a cost budget pass that is already exceeded.
   */
  readonly costUsd: number | null
  readonly summaryDone: boolean
}

/** A usage meter at zero. */
export const initUsageMeter = (): UsageMeter => ({
  stepsUsed: 0,
  tokens: { input: 0, output: 0, total: 0 },
  costUsd: 0,
  summaryDone: false
})

/**
 * Count one finished step. A step without usage (the provider sent none) counts as a step with
 * zero tokens and zero cost when priced; only an unknown price makes the cost unknown.
 */
export const recordStep = (meter: UsageMeter, usage: Usage | undefined, price: ModelPrice | null): UsageMeter => {
  const spent = addSpent(meter, usage, price)
  return { ...spent, stepsUsed: spent.stepsUsed + 1 }
}

/**
 * Add what a request cost without counting a step: an attempt that failed and was asked again
 * left the history, but the provider billed what it streamed.
 */
export const addSpent = (meter: UsageMeter, usage: Usage | undefined, price: ModelPrice | null): UsageMeter => {
  const u: Usage = usage ?? {}
  const input = u.inputTokens ?? 0
  const output = u.outputTokens ?? 0
  const total = u.totalTokens ?? input + output
  const cost = price === null ? null : (costOf(u, price) ?? 0)
  return {
    ...meter,
    tokens: {
      input: meter.tokens.input + input,
      output: meter.tokens.output + output,
      total: meter.tokens.total + total,
      ...(meter.tokens.estimated === true || u.estimated === true ? { estimated: true } : {})
    },
    costUsd: meter.costUsd === null || cost === null ? null : meter.costUsd + cost
  }
}

/** Mark the one summary request of summary mode as made. */
export const markSummaryDone = (meter: UsageMeter): UsageMeter => ({ ...meter, summaryDone: true })

/** The meter's totals as the cap policy reads them. */
export const capUsageOf = (meter: UsageMeter): CapUsage => ({
  stepsUsed: meter.stepsUsed,
  tokensUsed: meter.tokens.total,
  costUsd: meter.costUsd,
  summaryDone: meter.summaryDone
})
