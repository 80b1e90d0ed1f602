/** The request of one step: the stored history as the model should see it, plus this step's notes. */
import { capNotice, capUsageOf } from "@loopguard/core/caps"
import { reminderText } from "@loopguard/core/classify"
import { shrinkToolOutputs } from "@loopguard/core/context"
import { Effect } from "effect"
import type { LlmRequest, RequestMessage } from "../../llm/LLM.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { StepCap } from "./caps.js"
import { fitContext } from "./compact.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

/** Notes for this request only: the repeated-action note and the cap notice (which cap, how much used). */
export const ephemeralNotes = (ctx: RunContext, cap: StepCap): Array<string> => {
  const notes: Array<string> = []
  const note = ctx.detectors.takeNote()
  if (note !== null) notes.push(note)
  // The cooldown is only ever set when enforcing.
  if (ctx.state.toolCooldown > 0) notes.push(reminderText("breaker-cooldown", ctx.role))
  const d = cap.decision
  if (d !== "proceed" && (d.type === "last-step" || d.type === "summary")) notes.push(capNotice(d, ctx.policy, capUsageOf(ctx.state.meter), ctx.role))
  return notes
}

/**
 * The step's request from the run's history view (caught up with the store first): the same
 * request `buildRequest` makes from the whole stored history, without rebuilding it every step.
 */
export const requestForStep = (s: RunServices, ctx: RunContext, cap: StepCap, notes: ReadonlyArray<string>): Effect.Effect<LlmRequest, SessionStoreError> =>
  Effect.gen(function* () {
    yield* ctx.history.refresh
    const viewed = ctx.history.requestMessages((ctx.mode.shapesRequests ? notes : []).map((text): RequestMessage => ({ role: "user", text })))
    const messages = ctx.state.outputShrink === null ? viewed : shrinkToolOutputs(viewed, ctx.state.outputShrink).messages
    return {
      ...(ctx.input.system !== undefined ? { system: ctx.input.system } : {}),
      messages,
      // Any cap other than "proceed" means a tool-less request (soft-cap last step, summary). A replay
      // keeps its recorded tool calls: it enforces nothing, and a tool-less request would refuse them.
      tools: cap.decision !== "proceed" && ctx.mode.shapesRequests ? [] : ctx.toolSpecs
    }
  })

/** The step's request, compacting the history first when it would not fit the context. */
export const prepareRequest = (s: RunServices, ctx: RunContext, cap: StepCap): Effect.Effect<LlmRequest, SessionStoreError> =>
  Effect.gen(function* () {
    const notes = ephemeralNotes(ctx, cap)
    const request = yield* requestForStep(s, ctx, cap, notes)
    const viewed = ctx.history.viewMessages().length
    const estimate = () => ctx.history.estimateTokens(request, request.messages.slice(viewed))
    return (yield* fitContext(s, ctx, request, estimate)) ? yield* requestForStep(s, ctx, cap, notes) : request
  })
