/**
 * The cross-step detectors (`@loopguard/core/judge`) run on the stored history after every recorded
 * step, whatever the recovery said; their incidents and crop are filed at once, their pause, exit
 * and reminders only after the recovery has been applied.
 */
import { costOf } from "@loopguard/core/caps"
import { type AssistantMessage } from "@loopguard/core/model"
import { type RecoveryAction } from "@loopguard/core/classify"
import { tryBestNote } from "@loopguard/core/try-best"
import { Effect } from "effect"
import type { AfterStep } from "@loopguard/core/judge"
import { activePrice, pausedWho, recordIncident, remind, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const runCrossStep = (
  s: RunServices,
  ctx: RunContext,
  reply: AssistantMessage,
  action: RecoveryAction,
  cutForRepetition = false
): Effect.Effect<AfterStep, SessionStoreError> =>
  Effect.gen(function* () {
    yield* ctx.history.refresh
    const price = activePrice(s, ctx)
    const after = ctx.detectors.afterStep(
      ctx.history.messages,
      reply,
      ctx.step,
      {
        final: action.type === "final",
        costUsd: price === null ? null : costOf(reply.usage ?? {}, price),
        toolsPaused: ctx.toolsPausedThisStep,
        compacted: ctx.compactedSinceLastStep,
        cutForRepetition
      },
      ctx.history
    )
    ctx.compactedSinceLastStep = false
    for (const i of after.incidents) yield* recordIncident(s, ctx, i)
    // Try-Best's first reports on a subject are notes: filed now, given with the next request.
    for (const note of ctx.tryBest?.takeNotes() ?? []) {
      yield* recordIncident(s, ctx, { step: note.step, detector: note.kind.replace(/_/g, "-"), action: "note", detail: { ...note } })
      ctx.detectors.addNote(tryBestNote(note))
    }
    if (after.crop) yield* s.store.addCrop(ctx.input.sessionId, after.crop.on, after.crop.marker)
    return after
  })

export const applyCrossStep = (s: RunServices, ctx: RunContext, after: AfterStep): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (after.pause) {
      yield* s.events.publish({ type: "session.tryBest.detected", step: ctx.step, ...pausedWho(s, ctx), incident: after.pause })
      if ((yield* stop(ctx, "try_best_paused")) === "stop") return "stop"
    }
    if (after.exit) {
      if ((yield* stop(ctx, after.exit.reason, after.exit.error)) === "stop") return "stop"
    }
    if (after.breakerTrip !== undefined) yield* applyBreakerTrip(s, ctx, after.breakerTrip)
    for (const r of after.reminders) yield* remind(s, ctx, r.kind, r.text)
    return "go"
  })

/** Below hand-back the breaker cools tool execution down; its reroute rung switches the model. */
export const applyBreakerTrip = (s: RunServices, ctx: RunContext, rung: "degrade" | "reroute"): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.shadow) return
    ctx.toolCooldown = s.config.breaker.cooldownSteps
    if (rung !== "reroute" || s.fallback === null || ctx.rerouted) return
    ctx.rerouted = true
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "breaker", action: "model-switched", detail: { from: s.modelId, to: s.fallback.llm.modelId } })
  })
