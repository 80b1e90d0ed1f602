/** Before a step: the user turns a replay recorded for it, the end of a replay, cancellation. */
import { pendingPause } from "@loopguard/core/try-best"
import { Effect } from "effect"
import { pausedWho, recordIncident, stop, userTurn, type Flow, type RunContext, type RunServices } from "../run-context.js"
import { cancelledBy } from "./run-limits.js"
import { resumeSession } from "../resume.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"


export const beginStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    for (const text of ctx.input.userTurnsBefore?.(ctx.step) ?? []) yield* userTurn(s, ctx, text)
    // A replay ends when its recorded steps run out; no exit is recorded for that.
    if (ctx.shadow && ctx.step - ctx.firstStep >= ctx.policy.maxSteps) return "stop"
    if (ctx.input.signal?.aborted === true) {
      yield* stop(ctx, "cancelled", cancelledBy(ctx.input.signal).error)
      return "stop"
    }
    if (!ctx.shadow && ctx.rollback.atLoopStart()) {
      yield* stop(ctx, "rollback_cap", { tag: "RollbackCapError", message: "too many consecutive rollbacks before this step" })
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
    yield* s.events.publish({ type: "session.tryBest.detected", step: pause.step, ...pausedWho(s, ctx), incident: pause.incident })
    yield* recordIncident(s, ctx, { step: pause.step, detector: "try-best", action: "pause", detail: { ...pause.incident, reopened: true } })
    yield* stop(ctx, "try_best_paused")
    return true
  })

/**
 * The start of a run: the resume stage (../resume.ts), the new user turn, if any, the busy status,
 * and a cost cap that cannot work.
 * A run nested deeper than `subagents.maxDepth` stops here (`depth_limit`).
 */
export const startRun = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const depth = ctx.input.depth ?? 0
    if (depth > s.config.subagents.maxDepth) {
      const message = `a run at depth ${depth} is deeper than subagents.maxDepth = ${s.config.subagents.maxDepth}`
      yield* recordIncident(s, ctx, { step: ctx.step, detector: "subagent", action: "stop", detail: { reason: "depth_limit", depth } })
      yield* stop(ctx, "depth_limit", { tag: "DepthLimitError", message })
      return "stop"
    }
    // Interrupted calls told as such; without a new turn, the last reply is re-examined first.
    yield* resumeSession(s, ctx)
    if (ctx.exit !== null) return "stop"
    if (ctx.input.prompt !== undefined) yield* userTurn(s, ctx, ctx.input.prompt)
    yield* s.events.publish({ type: "session.status", status: "busy", attempt: 0 })
    if (ctx.input.prompt === undefined && !ctx.shadow && (yield* showStoredPause(s, ctx))) return "stop"
    const budget = ctx.policy.costBudgetUsd
    if (budget !== null && s.price === null && !ctx.shadow) {
      const message = `no price is known for model ${s.modelId}, so the cost cap (loop.costBudgetUsd = ${budget}) cannot trip; add the model under \`prices\` in the config`
      yield* recordIncident(s, ctx, { step: ctx.step, detector: "budget", action: "warn", detail: { reason: "budget_cost", message } })
    }
    return "go"
  })
