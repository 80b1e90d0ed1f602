/**
 * The step's class and the bounded recovery (classify → decide), then what the decision does:
 * a reminder, an exit, or a final answer that must still pass the finish gates.
 */
import { type AssistantMessage } from "@loopguard/core/model"
import { judgeClassification, judgeDecision, type StepDecision } from "@loopguard/core/step"
import { Effect } from "effect"
import type { StepOutcome } from "../../processor/SessionProcessor.js"
import { judge } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export type { StepDecision } from "@loopguard/core/step"

/** The configured recovery limits, with the request's own structured-output `retryCount` when it set one. */
const structuredLimit = (s: RunServices, ctx: RunContext) => {
  const own = ctx.input.structuredOutput?.retryCount
  return own === undefined ? s.config.recovery : { ...s.config.recovery, structuredRetries: Math.max(0, Math.floor(own)) }
}

export const decideStep = (s: RunServices, ctx: RunContext, reply: AssistantMessage, outcome: StepOutcome): Effect.Effect<StepDecision, SessionStoreError> => {
  const facts = { reply, cutForRepetition: outcome.type === "text-repeat", structuredOutput: ctx.input.structuredOutput !== undefined, role: ctx.role, limits: structuredLimit(s, ctx) }
  return Effect.map(judge(s, ctx, (state) => judgeClassification(state, facts)), ({ judged }) => judged.decided)
}

/** What the decision does: a reminder, an exit, or a final answer that must pass the finish gates (the interpreter runs them). */
export const applyDecision = (s: RunServices, ctx: RunContext, reply: AssistantMessage, decided: StepDecision): Effect.Effect<Flow, SessionStoreError> =>
  Effect.map(judge(s, ctx, (state) => judgeDecision(state, reply, decided)), ({ flow }) => flow)
