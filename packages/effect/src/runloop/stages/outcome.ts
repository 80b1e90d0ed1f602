/**
 * What the processor's outcome and the finished reply say before any classification: usage is
 * metered, a pause / denied doom loop / summary request ends the run, a rollback pops the reply,
 * a structured-output call is the final result.
 */
import { markSummaryDone, recordStep, streamedUsage } from "@loopguard/core/caps"
import { type AssistantMessage } from "@loopguard/core/model"
import { Effect } from "effect"
import type { ProcessResult, StepOutcome } from "../../processor/SessionProcessor.js"
import { structuredToolName } from "../local-tools.js"
import { activePrice, count, pausedWho, recordIncident, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { StepCap } from "./caps.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

const pausedBy = (detector: string, incident: Readonly<Record<string, unknown>>) => String(incident["kind"] ?? detector).replace(/_/g, "-")

/** Meters the reply (the summary request counts as made) and keeps it as the run's last reply. */
export const recordReply = (s: RunServices, ctx: RunContext, result: ProcessResult, cap: StepCap): AssistantMessage => {
  const reply = result.message
  count(ctx, "transport", result.attempts - 1)
  // Already published by the processor; only kept for the report here.
  ctx.incidents.push(...result.incidents)
  ctx.lastReply = reply
  // A cut or failed step ends before the server's usage arrives; what it streamed still counts.
  const cutShort = result.outcome.type !== "continue" || reply.error !== undefined
  ctx.meter = recordStep(ctx.meter, cutShort ? streamedUsage(reply) : reply.usage, activePrice(s, ctx))
  if (cap.summaryReason !== null) ctx.meter = markSummaryDone(ctx.meter)
  return reply
}

export const applyOutcome = (s: RunServices, ctx: RunContext, outcome: StepOutcome, cap: StepCap): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const step = ctx.step
    if (outcome.type === "paused") {
      yield* s.events.publish({ type: "session.tryBest.detected", step, ...pausedWho(s, ctx), incident: outcome.incident })
      yield* recordIncident(s, ctx, { step, detector: pausedBy("try-best", outcome.incident), action: "pause", detail: outcome.incident })
      // A pause ends the turn; nothing after it (goal gate, recoveries) may override it.
      if ((yield* stop(ctx, "try_best_paused")) === "stop") return "stop"
    }
    if (outcome.type === "stop") {
      if ((yield* stop(ctx, "doom_loop", { tag: "DoomLoopError", message: outcome.reason })) === "stop") return "stop"
    }
    if (outcome.type === "text-repeat") {
      yield* recordIncident(s, ctx, { step, detector: "text-repeat", action: "cut", detail: { ...outcome.trip } })
    }
    if (cap.summaryReason !== null) return yield* stop(ctx, cap.summaryReason)
    return "go"
  })

/**
 * A sub-agent that paused hands its pause up: the choice (stop, continue, hand off) is the
 * person's, not the parent model's, so the parent's turn pauses with the child's incident.
 */
export const applyChildPause = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const paused = ctx.childPause
    if (paused === null) return "go"
    ctx.childPause = null
    yield* s.events.publish({ type: "session.tryBest.detected", step: ctx.step, ...pausedWho(s, ctx), incident: paused.detail })
    yield* recordIncident(s, ctx, { step: ctx.step, detector: paused.detector, action: "pause", detail: paused.detail })
    return (yield* stop(ctx, "try_best_paused")) === "stop" ? "stop" : "go"
  })

/** Rollback (docs/rollback.md): a popped reply leaves every later request and costs no turn. */
export const applyRollback = (s: RunServices, ctx: RunContext, reply: AssistantMessage, outcome: StepOutcome): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const rolled = outcome.type === "continue" ? ctx.rollback.afterStep(reply) : null
    if (rolled === null) return "go"
    const { kind, ...evidence } = rolled.trigger
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "rollback", action: rolled.action, detail: { kind, ...evidence } })
    if (rolled.action === "rollback" && !ctx.shadow) {
      yield* s.store.exclude(ctx.input.sessionId, reply.id, "rollback")
      ctx.meter = { ...ctx.meter, stepsUsed: ctx.meter.stepsUsed - 1 }
      count(ctx, "rollback")
      return "next"
    }
    if (rolled.action === "end-loop") {
      const message = `${s.config.rollback.maxConsecutiveRollbacks} consecutive rollbacks (${kind})`
      return yield* stop(ctx, "rollback_cap", { tag: "RollbackCapError", message })
    }
    return "go"
  })

/** A completed call of the structured-output tool is the run's result. */
export const captureStructured = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (!ctx.input.structuredOutput) return "go"
    const name = structuredToolName(ctx.input)
    const call = reply.parts.find((p) => p.type === "tool" && p.name === name && p.state === "completed")
    if (!call || call.type !== "tool") return "go"
    ctx.structured = { value: call.input }
    yield* s.events.publish({ type: "recovery", step: ctx.step, action: "final", kind: "structured-output" })
    return yield* stop(ctx, "final")
  })
