/**
 * The step's class and the bounded recovery (classify → decide), then what the decision does:
 * a reminder, an exit, or a final answer that must still pass the finish gates.
 */
import { classifyStep, decideRecovery, hasPendingClientTool, type RecoveryAction, type StepClassification } from "@loopguard/core/classify"
import { toolPartsOf, type AssistantMessage } from "@loopguard/core/model"
import { Effect } from "effect"
import type { StepOutcome } from "../../processor/SessionProcessor.js"
import { recordIncident, remind, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export interface StepDecision {
  readonly classification: StepClassification
  readonly action: RecoveryAction
}

/** The configured recovery limits, with the request's own structured-output `retryCount` when it set one (seed 000). */
const structuredLimit = (s: RunServices, ctx: RunContext) => {
  const own = ctx.input.structuredOutput?.retryCount
  return own === undefined ? s.config.recovery : { ...s.config.recovery, structuredRetries: Math.max(0, Math.floor(own)) }
}

export const decideStep = (s: RunServices, ctx: RunContext, reply: AssistantMessage, outcome: StepOutcome): Effect.Effect<StepDecision, SessionStoreError> =>
  Effect.gen(function* () {
    const classification = classifyStep({ reply, currentUserId: ctx.currentUserId })
    yield* s.events.publish({
      type: "step.classified",
      step: ctx.step,
      class: classification.class,
      degraded: classification.degraded === true,
      reason: classification.reason
    })
    const decision = decideRecovery(ctx.recovery, {
      classification,
      ...(reply.finish !== undefined ? { finish: reply.finish } : {}),
      pendingClientTool: hasPendingClientTool(reply),
      madeClientToolCall: toolPartsOf(reply).some((p) => p.providerExecuted !== true),
      outcome: outcome.type === "text-repeat" ? "text-repeat" : "normal",
      structuredOutput: ctx.input.structuredOutput !== undefined,
      role: ctx.role,
      limits: structuredLimit(s, ctx),
      ...(reply.error !== undefined ? { error: reply.error } : {})
    })
    ctx.recovery = decision.state
    return { classification, action: decision.action }
  })

export const applyDecision = (s: RunServices, ctx: RunContext, reply: AssistantMessage, decided: StepDecision): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const { action: act, classification } = decided
    const step = ctx.step
    if (act.type !== "next-step") {
      yield* s.events.publish({
        type: "recovery",
        step,
        action: act.type,
        ...(act.type === "remind" ? { kind: act.kind, text: act.text } : {}),
        ...(act.type === "exit" ? { kind: act.reason } : {})
      })
    }
    if (act.type === "remind") {
      const detector = act.kind === "text-repeat-remind" || act.kind === "text-repeat-replan" ? "text-repeat" : classification.class
      yield* recordIncident(s, ctx, { step, detector, action: act.kind, detail: { reason: classification.reason } })
      if (act.exclude && !ctx.shadow) yield* s.store.exclude(ctx.input.sessionId, reply.id, act.exclude)
      yield* remind(s, ctx, act.kind, act.text)
      return "go"
    }
    if (act.type === "exit") {
      if (act.reason !== "final") {
        const detail = { reason: classification.reason, ...(act.error ? { error: act.error } : {}) }
        // A recorded cancel is filed as the live one is; the in-stream repetition's last word is its own detector's.
        const detector = act.reason === "text_repeat" ? "text-repeat" : classification.class
        const filed = act.reason === "cancelled" ? { detector: "cancel", action: "stop" } : { detector, action: `exit:${act.reason}` }
        yield* recordIncident(s, ctx, { step, ...filed, detail })
      }
      return yield* stop(ctx, act.reason, act.error)
    }
    if (act.type === "final") return yield* acceptFinal(s, ctx, reply)
    return "go"
  })

/** A final answer ends the run only past the completion check and the goal gate (never in shadow mode). */
export const acceptFinal = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.shadow) return yield* stop(ctx, "final")
    const verdict = yield* ctx.gates.check(reply, ctx.step)
    if (verdict.type === "accept") return yield* stop(ctx, "final")
    if (verdict.type === "exit") return yield* stop(ctx, verdict.reason, verdict.error)
    yield* remind(s, ctx, verdict.kind, verdict.text)
    return "go"
  })
