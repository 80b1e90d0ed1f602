/**
 * What the model is told on a soft-cap last step or the summary request of summary mode: which
 * cap fired and how much of it was used, so its wrap-up can say why the work stops (a cut
 * the model does not know about is a silent mid-task truncation).
 */
import { ROLE_WRAP_UP, type AgentRole } from "../classify/reminders.js"
import type { CapPolicy, CapReason, CapUsage } from "./cap-policy.js"

export type CapNoticeDecision = { readonly type: "last-step" } | { readonly type: "summary"; readonly reason: CapReason }

const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`

/** "the step cap (50 of 50 steps used)", "the token budget (10,250 of 10,000 tokens)", … */
export const capUsageText = (reason: CapReason, policy: CapPolicy, usage: CapUsage): string => {
  if (reason === "max_steps") return `the step cap (${usage.stepsUsed} of ${policy.maxSteps} steps used)`
  if (reason === "budget_tokens") return `the token budget (${usage.tokensUsed} of ${policy.tokenBudget ?? "?"} tokens used)`
  return `the cost budget (${usd(usage.costUsd ?? 0)} of ${policy.costBudgetUsd === null ? "?" : usd(policy.costBudgetUsd)} used)`
}

/** The soft-cap or summary notice: which cap fired, how much of it was used, how this role wraps up. */
export const capNotice = (decision: CapNoticeDecision, policy: CapPolicy, usage: CapUsage, role: AgentRole): string => {
  const why =
    decision.type === "last-step"
      ? `Maximum steps reached: this is step ${usage.stepsUsed + 1} of ${policy.maxSteps}, the last one allowed by the step cap. No tools are available for it.`
      : `The work stops here: ${capUsageText(decision.reason, policy, usage)} is reached. No tools are available.`
  return `${why} ${ROLE_WRAP_UP[role]}`
}
