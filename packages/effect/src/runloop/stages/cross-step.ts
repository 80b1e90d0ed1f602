/**
 * The cross-step detectors (`@loopguard/core/judge`) run on the stored history after every recorded
 * step, whatever the recovery said; their incidents and crop are filed at once, their pause, exit
 * and reminders only after the recovery has been applied (`@loopguard/core/step` judges both).
 */
import { costOf } from "@loopguard/core/caps"
import { type AssistantMessage } from "@loopguard/core/model"
import { type RecoveryAction } from "@loopguard/core/classify"
import { judgeCrossStepFindings, judgeCrossStepVerdict } from "@loopguard/core/step"
import { tryBestNote } from "@loopguard/core/try-best"
import { Effect } from "effect"
import type { AfterStep } from "@loopguard/core/judge"
import { judge } from "../interpret.js"
import { activePrice, type Flow, type RunContext, type RunServices } from "../run-context.js"
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
    const { state } = ctx
    const after = ctx.detectors.afterStep(
      ctx.history.messages,
      reply,
      state.step,
      {
        final: action.type === "final",
        costUsd: price === null ? null : costOf(reply.usage ?? {}, price),
        toolsPaused: state.toolsPausedThisStep,
        compacted: state.compactedSinceLastStep,
        cutForRepetition
      },
      ctx.history
    )
    // Try-Best's first reports on a subject are notes: filed now, given with the next request.
    const notes = ctx.tryBest?.takeNotes() ?? []
    for (const note of notes) ctx.detectors.addNote(tryBestNote(note))
    yield* judge(s, ctx, (current) => judgeCrossStepFindings(current, after, notes))
    return after
  })

export const applyCrossStep = (s: RunServices, ctx: RunContext, after: AfterStep): Effect.Effect<Flow, SessionStoreError> => {
  const breaker = {
    cooldownSteps: s.config.breaker.cooldownSteps,
    reroute: s.fallback === null ? null : { from: s.modelId, to: s.fallback.llm.modelId }
  }
  return Effect.map(judge(s, ctx, (state) => judgeCrossStepVerdict(state, after, breaker)), ({ flow }) => flow)
}
