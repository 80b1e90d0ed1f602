/** Before a step: the user turns a replay recorded for it, the end of a replay, cancellation. */
import { pendingPause } from "@loopguard/core/try-best"
import { fileIncident, stopWith } from "@loopguard/core/step"
import { Effect } from "effect"
import { act } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import { cancelledBy } from "./run-limits.js"
import { resumeSession } from "../resume.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const beginStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const turns = ctx.input.userTurnsBefore?.(ctx.state.step) ?? []
    yield* act(s, ctx, turns.map((text) => ({ _tag: "UserTurn", text }) as const))
    // A replay ends when its recorded steps run out; no exit is recorded for that.
    if (ctx.shadow && ctx.state.step - ctx.state.firstStep >= ctx.policy.maxSteps) return "stop"
    if (ctx.input.signal?.aborted === true) {
      yield* act(s, ctx, [stopWith("cancelled", cancelledBy(ctx.input.signal).error)])
      return "stop"
    }
    if (!ctx.shadow && ctx.rollback.atLoopStart()) {
      yield* act(s, ctx, [stopWith("rollback_cap", { tag: "RollbackCapError", message: "too many consecutive rollbacks before this step" })])
      return "stop"
    }
    return "go"
  })

/**
 * Reopening a session that is still paused (no person answered since) shows the stored pause again
 * and ends the run `try_best_paused` without a model request: a pause is never resumed silently.
 */
const showStoredPause = (s: RunServices, ctx: RunContext): Effect.Effect<boolean, SessionStoreError> =>
  Effect.gen(function* () {
    const pause = pendingPause(yield* s.store.messages(ctx.input.sessionId))
    if (pause === null) return false
    yield* act(s, ctx, [
      { _tag: "AnnouncePause", step: pause.step, incident: pause.incident },
      fileIncident({ step: pause.step, detector: "try-best", action: "pause", detail: { ...pause.incident, reopened: true } }),
      stopWith("try_best_paused")
    ])
    return true
  })

/** A run nested deeper than `subagents.maxDepth` stops at once (`depth_limit`). */
const tooDeep = (s: RunServices, ctx: RunContext): Effect.Effect<boolean, SessionStoreError> => {
  const depth = ctx.input.depth ?? 0
  if (depth <= s.config.subagents.maxDepth) return Effect.succeed(false)
  const message = `a run at depth ${depth} is deeper than subagents.maxDepth = ${s.config.subagents.maxDepth}`
  const incident = fileIncident({ step: ctx.state.step, detector: "subagent", action: "stop", detail: { reason: "depth_limit", depth } })
  return Effect.as(act(s, ctx, [incident, stopWith("depth_limit", { tag: "DepthLimitError", message })]), true)
}

/**
 * The start of a run: the depth cap, the resume stage (../resume.ts), the new user turn, if any,
 * the busy status, and a cost cap that cannot work.
 */
export const startRun = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if (yield* tooDeep(s, ctx)) return "stop"
    // Interrupted calls told as such; without a new turn, the last reply is re-examined first.
    yield* resumeSession(s, ctx)
    if (ctx.state.exit !== null) return "stop"
    if (ctx.input.prompt !== undefined) yield* act(s, ctx, [{ _tag: "UserTurn", text: ctx.input.prompt }])
    yield* s.events.publish({ type: "session.status", status: "busy", attempt: 0 })
    if (ctx.input.prompt === undefined && !ctx.shadow && (yield* showStoredPause(s, ctx))) return "stop"
    const budget = ctx.policy.costBudgetUsd
    if (budget !== null && s.price === null && !ctx.shadow) {
      const message = `no price is known for model ${s.modelId}, so the cost cap (loop.costBudgetUsd = ${budget}) cannot trip; add the model under \`prices\` in the config`
      yield* act(s, ctx, [fileIncident({ step: ctx.state.step, detector: "budget", action: "warn", detail: { reason: "budget_cost", message } })])
    }
    return "go"
  })
