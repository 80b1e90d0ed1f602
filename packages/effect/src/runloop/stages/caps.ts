/** The caps asked before each step (docs/run-loop.md): stop, a soft-cap last step, or the one summary request. */
import { capDecision, capUsageOf, capUsageText, type CapDecision, type CapReason } from "@loopguard/core/caps"
import { Effect } from "effect"
import { recordIncident, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export interface StepCap {
  readonly decision: CapDecision
  /** Set when this step is the summary request of summary mode. */
  readonly summaryReason: CapReason | null
}

/** The step cap is not a budget: each cap is filed under its own name. */
export const CAP_DETECTOR: Readonly<Record<CapReason, string>> = { max_steps: "step-cap", budget_tokens: "budget", budget_cost: "budget" }

export const checkCaps = (s: RunServices, ctx: RunContext): Effect.Effect<{ readonly flow: Flow; readonly cap: StepCap }, SessionStoreError> =>
  Effect.gen(function* () {
    const decision = capDecision(ctx.policy, capUsageOf(ctx.meter))
    const summaryReason = decision !== "proceed" && decision.type === "summary" ? decision.reason : null
    const cap = { decision, summaryReason }
    if (decision === "proceed" || decision.type !== "stop") return { flow: "go", cap }
    const used = capUsageText(decision.reason, ctx.policy, capUsageOf(ctx.meter))
    yield* recordIncident(s, ctx, { step: ctx.step, detector: CAP_DETECTOR[decision.reason], action: "stop", detail: { reason: decision.reason, used } })
    return { flow: yield* stop(ctx, decision.reason), cap }
  })
