/**
 * Loop caps (docs/run-loop.md): when an agent must stop taking steps, and how.
 *
 * The four designs trade a runaway loop against silent mid-task truncation:
 * - hard:    stop at `maxSteps` with the explicit reason `max_steps`.
 * - soft:    the step that is the last allowed one runs with the soft-cap message and no tools,
 *            so the model wraps up itself; if it still has not finished, stop with `max_steps`.
 * - summary: once steps or budget are spent, make ONE tool-less request for a summary, then stop
 *            with the reason that triggered it.
 * - none:    never stops on steps (for runtimes that compact context), but token and cost budgets
 *            still apply: compaction keeps a context small, it does not make spending free.
 *
 * Token and cost budgets stop every mode (summary mode summarises first). A budget cannot warn
 * ahead the way the soft cap does, since the next step's size is unknown; overspending is exactly
 * what a budget forbids, so soft mode stops on a spent budget.
 *
 * The policy is per agent: a parent and each child have their own usage and their own policy.
 */

export type CapMode = "hard" | "soft" | "summary" | "none"

export interface CapPolicy {
  readonly mode: CapMode
  readonly maxSteps: number
  /** Total tokens (input + output) the agent may use; null = no token budget. */
  readonly tokenBudget: number | null
  /** USD the agent may spend; null = no cost budget. Ignored while the cost is unknown (no price). */
  readonly costBudgetUsd: number | null
  /** Per tool execution; enforced by the tool runner. */
  readonly toolTimeoutMs: number
  /** Per model step; null = none. Enforced by the session processor. */
  readonly stepTimeoutMs: number | null
}

export const DEFAULT_CAP_POLICY: CapPolicy = {
  mode: "hard",
  maxSteps: 50,
  tokenBudget: null,
  costBudgetUsd: null,
  toolTimeoutMs: 120_000,
  stepTimeoutMs: null
}

export interface CapUsage {
  /** Steps this agent already finished in the run. */
  readonly stepsUsed: number
  readonly tokensUsed: number
  /** Null when the model's price is unknown. */
  readonly costUsd: number | null
  /** The one summary request of summary mode has been made. */
  readonly summaryDone?: boolean
}

/** The cap that fired, named in the exit reason: the step cap, the token budget or the cost budget. */
export type CapReason = "max_steps" | "budget_tokens" | "budget_cost"

export type CapDecision =
  | "proceed"
  | { readonly type: "last-step" }
  | { readonly type: "summary"; readonly reason: CapReason }
  | { readonly type: "stop"; readonly reason: CapReason }

/** Which budget is spent, cost first (money is the harder limit); null when neither. */
export const spentBudget = (policy: CapPolicy, usage: CapUsage): "budget_tokens" | "budget_cost" | null =>
  policy.costBudgetUsd !== null && usage.costUsd !== null && usage.costUsd >= policy.costBudgetUsd
    ? "budget_cost"
    : policy.tokenBudget !== null && usage.tokensUsed >= policy.tokenBudget
      ? "budget_tokens"
      : null

/** Whether the token or cost budget is used up. */
export const isBudgetSpent = (policy: CapPolicy, usage: CapUsage): boolean => spentBudget(policy, usage) !== null

/** Asked before each step: may the agent take it, and in what form? */
export const capDecision = (policy: CapPolicy, usage: CapUsage): CapDecision => {
  // Money first: when both are spent, the budget is the harder limit and the truer reason.
  const spent: CapReason | null = spentBudget(policy, usage) ?? (policy.mode !== "none" && usage.stepsUsed >= policy.maxSteps ? "max_steps" : null)

  if (spent !== null) {
    if (policy.mode === "summary" && usage.summaryDone !== true) return { type: "summary", reason: spent }
    return { type: "stop", reason: spent }
  }
  if (policy.mode === "soft" && usage.stepsUsed >= policy.maxSteps - 1) return { type: "last-step" }
  return "proceed"
}
