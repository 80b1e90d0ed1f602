/** The request of one step: the stored history as the model should see it, plus this step's notes. */
import { reminderText } from "@loopguard/core/classify"
import { Effect } from "effect"
import type { LlmRequest } from "../../llm/LLM.js"
import { buildRequest } from "../request.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { StepCap } from "./caps.js"

/** Notes for this request only: the repeated-action note and the cap notices. */
export const ephemeralNotes = (ctx: RunContext, cap: StepCap): Array<string> => {
  const notes: Array<string> = []
  const note = ctx.detectors.takeNote()
  if (note !== null) notes.push(note)
  if (cap.decision !== "proceed" && cap.decision.type === "last-step") notes.push(reminderText("soft-cap", ctx.role))
  if (cap.summaryReason !== null) notes.push(reminderText("summary", ctx.role))
  return notes
}

export const requestForStep = (s: RunServices, ctx: RunContext, cap: StepCap): Effect.Effect<LlmRequest> =>
  Effect.gen(function* () {
    const notes = ephemeralNotes(ctx, cap)
    const built = buildRequest({
      messages: yield* s.store.messages(ctx.input.sessionId),
      ...(ctx.input.system !== undefined ? { system: ctx.input.system } : {}),
      tools: ctx.toolSpecs,
      // Any cap other than "proceed" means a tool-less request (soft-cap last step, summary).
      toolless: cap.decision !== "proceed",
      ephemeral: ctx.shadow ? [] : notes,
      // Crops stay stored, but switching the feature off restores the full view (seed 000).
      applyCrops: !ctx.shadow && s.config.loop_streak_recovery.enabled
    })
    return built.request
  })
