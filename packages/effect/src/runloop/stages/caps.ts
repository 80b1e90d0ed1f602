/** The caps asked before each step (SPEC §8): stop, a soft-cap last step, or the one summary request. */
import { capDecision, capUsageOf, type CapDecision, type CapReason } from "@loopguard/core/caps"
import { Effect } from "effect"
import { recordIncident, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"

export interface StepCap {
  readonly decision: CapDecision
  /** Set when this step is the summary request of summary mode. */
  readonly summaryReason: CapReason | null
}

export const checkCaps = (s: RunServices, ctx: RunContext): Effect.Effect<{ readonly flow: Flow; readonly cap: StepCap }> =>
  Effect.gen(function* () {
    const decision = capDecision(ctx.policy, capUsageOf(ctx.meter))
    const summaryReason = decision !== "proceed" && decision.type === "summary" ? decision.reason : null
    const cap = { decision, summaryReason }
    if (decision === "proceed" || decision.type !== "stop") return { flow: "go", cap }
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "budget", action: "stop", detail: { reason: decision.reason } })
    return { flow: yield* stop(ctx, decision.reason), cap }
  })
