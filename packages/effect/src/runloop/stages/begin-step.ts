/** Before a step: the user turns a replay recorded for it, the end of a replay, cancellation, the rollback cap. */
import { pendingPause } from "@loopguard/core/try-best"
import { judgeDepth, judgeStepStart, judgeStoredPause, judgeUnpricedBudget } from "@loopguard/core/step"
import { Effect } from "effect"
import { act, judge } from "../interpret.js"
import type { Flow, RunContext, RunServices } from "../run-context.js"
import { cancelledBy } from "./run-limits.js"
import { resumeSession } from "../resume.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const beginStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const turns = ctx.input.userTurnsBefore?.(ctx.state.step) ?? []
    yield* act(s, ctx, turns.map((text) => ({ _tag: "UserTurn", text }) as const))
    const signal = ctx.input.signal
    const cancelled = signal?.aborted === true ? cancelledBy(signal) : null
    const facts = { maxSteps: ctx.policy.maxSteps, cancelled, rollbackCapReached: ctx.rollback.atLoopStart() }
    const { flow } = yield* judge(s, ctx, (state) => judgeStepStart(state, facts))
    // A cancel ends a replay too: nothing more is read from it.
    return cancelled !== null ? "stop" : flow
  })

/**
 * Reopening a session that is still paused (no person answered since) shows the stored pause again
 * and ends the run `try_best_paused` without a model request: a pause is never resumed silently.
 */
const showStoredPause = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const pause = pendingPause(yield* s.store.messages(ctx.input.sessionId))
    return pause === null ? "go" : (yield* judge(s, ctx, (state) => judgeStoredPause(state, pause))).flow
  })

/**
 * The start of a run: the depth cap, the resume stage (../resume.ts), the new user turn, if any,
 * the busy status, and a cost cap that cannot work.
 */
export const startRun = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    if ((yield* judge(s, ctx, (state) => judgeDepth(state, ctx.input.depth ?? 0, s.config.subagents.maxDepth))).flow === "stop") return "stop"
    // Interrupted calls told as such; without a new turn, the last reply is re-examined first.
    yield* resumeSession(s, ctx)
    if (ctx.state.exit !== null) return "stop"
    if (ctx.input.prompt !== undefined) yield* act(s, ctx, [{ _tag: "UserTurn", text: ctx.input.prompt }])
    yield* s.events.publish({ type: "session.status", status: "busy", attempt: 0 })
    if (ctx.input.prompt === undefined && (yield* showStoredPause(s, ctx)) === "stop") return "stop"
    yield* judge(s, ctx, (state) => judgeUnpricedBudget(state, s.modelId, ctx.policy.costBudgetUsd, s.price !== null))
    return "go"
  })
