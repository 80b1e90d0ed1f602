/**
 * A child agent's budget (parent and child agents have separate budgets, docs/run-loop.md):
 * its own step cap, and a slice of what the parent has left of each budget, so a sub-agent can
 * never spend more than the parent still may. What the child spends is added to the parent's meter
 * when it returns.
 */
import type { CapPolicy } from "./cap-policy.js"
import type { UsageMeter } from "./usage-meter.js"

export interface SliceOptions {
  /** The child's own step cap. */
  readonly maxSteps: number
  /** The child's own token / cost caps; null = only the slice of the parent's. */
  readonly tokenBudget: number | null
  readonly costBudgetUsd: number | null
  /** Share of the parent's remaining budget a child may take (0–1]. */
  readonly shareOfRemaining: number
}

export interface BudgetSlice {
  readonly maxSteps: number
  readonly tokenBudget: number | null
  readonly costBudgetUsd: number | null
}

const smaller = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b))

/** Null when the parent has nothing left to give (no step, no token or no money). */
export const budgetSlice = (parent: CapPolicy, used: UsageMeter, options: SliceOptions): BudgetSlice | null => {
  const share = options.shareOfRemaining
  const stepsLeft = parent.mode === "none" ? options.maxSteps : parent.maxSteps - used.stepsUsed
  const tokensLeft = parent.tokenBudget === null ? null : parent.tokenBudget - used.tokens.total
  const costLeft = parent.costBudgetUsd === null || used.costUsd === null ? null : parent.costBudgetUsd - used.costUsd
  if (stepsLeft <= 0 || (tokensLeft !== null && tokensLeft <= 0) || (costLeft !== null && costLeft <= 0)) return null
  return {
    maxSteps: Math.max(1, Math.min(options.maxSteps, Math.floor(stepsLeft * share))),
    tokenBudget: smaller(options.tokenBudget, tokensLeft === null ? null : Math.max(1, Math.floor(tokensLeft * share))),
    costBudgetUsd: smaller(options.costBudgetUsd, costLeft === null ? null : costLeft * share)
  }
}

/** The parent's meter after a child returned: its tokens and cost added, not its steps. */
export const addChildUsage = (meter: UsageMeter, child: { readonly tokens: UsageMeter["tokens"]; readonly costUsd: number | null }): UsageMeter => ({
  ...meter,
  tokens: { input: meter.tokens.input + child.tokens.input, output: meter.tokens.output + child.tokens.output, total: meter.tokens.total + child.tokens.total },
  costUsd: meter.costUsd === null || child.costUsd === null ? null : meter.costUsd + child.costUsd
})
