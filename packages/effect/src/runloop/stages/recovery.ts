/**
 * The step's class and the bounded recovery (classify → decide), then what the decision does:
 * a reminder, an exit, or a final answer that must still pass the finish gates.
 */
import { type AssistantMessage } from "@loopguard/core/model"
import { judgeClassification, judgeDecision, judgeGateVerdict, stopWith, type StepDecision } from "@loopguard/core/step"
import { Effect } from "effect"
import type { StepOutcome } from "../../processor/SessionProcessor.js"
import { act, judge, recordIncident } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export type { StepDecision } from "@loopguard/core/step"

/** The configured recovery limits, with the request's own structured-output `retryCount` when it set one (seed 000). */
const structuredLimit = (s: RunServices, ctx: RunContext) => {
  const own = ctx.input.structuredOutput?.retryCount
  return own === undefined ? s.config.recovery : { ...s.config.recovery, structuredRetries: Math.max(0, Math.floor(own)) }
}

export const decideStep = (s: RunServices, ctx: RunContext, reply: AssistantMessage, outcome: StepOutcome): Effect.Effect<StepDecision, SessionStoreError> => {
  const facts = { reply, cutForRepetition: outcome.type === "text-repeat", structuredOutput: ctx.input.structuredOutput !== undefined, role: ctx.role, limits: structuredLimit(s, ctx) }
  return Effect.map(judge(s, ctx, (state) => judgeClassification(state, facts)), ({ judged }) => judged.decided)
}

export const applyDecision = (s: RunServices, ctx: RunContext, reply: AssistantMessage, decided: StepDecision): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const { flow } = yield* judge(s, ctx, (state) => judgeDecision(state, reply, decided))
    if (flow !== "go" || decided.action.type !== "final") return flow
    return yield* acceptFinal(s, ctx, reply)
  })

/** A final answer ends the run only past the completion check and the goal gate (never run when replaying). */
export const acceptFinal = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.shadow) return yield* act(s, ctx, [stopWith("final")])
    const verdict = yield* ctx.gates.check(reply, ctx.state.step, (i) => recordIncident(s, ctx, i))
    return (yield* judge(s, ctx, (state) => judgeGateVerdict(state, verdict))).flow
  })
