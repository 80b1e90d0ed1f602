/** The request of one step: the stored history as the model should see it, plus this step's notes. */
import { capNotice, capUsageOf } from "@loopguard/core/caps"
import { reminderText } from "@loopguard/core/classify"
import { Effect } from "effect"
import type { LlmRequest } from "../../llm/LLM.js"
import { buildRequest } from "../request.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { StepCap } from "./caps.js"
import { fitContext } from "./compact.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

/** Notes for this request only: the repeated-action note and the cap notice (which cap, how much used). */
export const ephemeralNotes = (ctx: RunContext, cap: StepCap): Array<string> => {
  const notes: Array<string> = []
  const note = ctx.detectors.takeNote()
  if (note !== null) notes.push(note)
  if (ctx.toolCooldown > 0 && !ctx.shadow) notes.push(reminderText("breaker-cooldown", ctx.role))
  const d = cap.decision
  if (d !== "proceed" && (d.type === "last-step" || d.type === "summary")) notes.push(capNotice(d, ctx.policy, capUsageOf(ctx.meter), ctx.role))
  return notes
}

export const requestForStep = (s: RunServices, ctx: RunContext, cap: StepCap, notes: ReadonlyArray<string>): Effect.Effect<LlmRequest, SessionStoreError> =>
  Effect.gen(function* () {
    const built = buildRequest({
      messages: yield* s.store.messages(ctx.input.sessionId),
      ...(ctx.input.system !== undefined ? { system: ctx.input.system } : {}),
      tools: ctx.toolSpecs,
      // Any cap other than "proceed" means a tool-less request (soft-cap last step, summary). A replay
      // keeps its recorded tool calls: it enforces nothing, and a tool-less request would refuse them.
      toolless: cap.decision !== "proceed" && !ctx.shadow,
      ephemeral: ctx.shadow ? [] : notes,
      applyCrops: !ctx.shadow,
      // Crops stay stored, but switching the feature off restores the full view (seed 000).
      streakCrops: s.config.loop_streak_recovery.enabled
    })
    return built.request
  })

/** The step's request, compacting the history first when it would not fit the context. */
export const prepareRequest = (s: RunServices, ctx: RunContext, cap: StepCap): Effect.Effect<LlmRequest, SessionStoreError> =>
  Effect.gen(function* () {
    const notes = ephemeralNotes(ctx, cap)
    const request = yield* requestForStep(s, ctx, cap, notes)
    return (yield* fitContext(s, ctx, request)) ? yield* requestForStep(s, ctx, cap, notes) : request
  })
