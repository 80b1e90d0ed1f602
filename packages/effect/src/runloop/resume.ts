/**
 * The first stage of a run on a session that already has history (docs/store.md):
 * 1. calls written ahead but never answered (cancel, crash) are rewritten as interrupted, so the
 *    model is told they started — never silently dropped, never silently re-run;
 * 2. a run that resumes without a new user turn first re-examines the last reply, as the top of
 *    MiMo Code's loop does: a cut-off or empty reply gets its reminder, a final answer
 *    ends the run without a request, anything else goes on with the next request.
 */
import { markInterruptedCalls, type Message } from "@loopguard/core/model"
import { fileIncident, judgeResume, reexamineLastReply } from "@loopguard/core/step"
import { Effect } from "effect"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { act, judge } from "./interpret.js"
import type { RunContext, RunServices } from "./run-context.js"

/** Rewrites interrupted calls in the store and reports them; returns the history as it now stands. */
export const repairInterruptedCalls = (
  s: RunServices,
  ctx: RunContext,
  history: ReadonlyArray<Message>
): Effect.Effect<ReadonlyArray<Message>, SessionStoreError> =>
  Effect.gen(function* () {
    const { replies, calls } = markInterruptedCalls(history)
    if (replies.length === 0) return history
    for (const r of replies) yield* s.store.putAssistant(ctx.input.sessionId, r)
    yield* act(s, ctx, calls.map((c) => fileIncident({ step: c.step, detector: "resume", action: "interrupted-call", detail: { callId: c.callId, tool: c.name, input: c.input } })))
    const byId = new Map(replies.map((r) => [r.id, r]))
    return history.map((m) => byId.get(m.id) ?? m)
  })

/**
 * The resume stage, before the first step of an enforcing run on a session with history: repair
 * interrupted calls; then, with no new user turn, act on the last reply (a reminder, or the end).
 */
export const resumeSession = (s: RunServices, ctx: RunContext): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    if (!ctx.mode.resumes) return
    const history = yield* s.store.messages(ctx.input.sessionId)
    if (history.length === 0) return
    const repaired = yield* repairInterruptedCalls(s, ctx, history)
    if (ctx.input.prompt !== undefined) return
    const { reply, verdict } = reexamineLastReply({ history: repaired, currentUserId: ctx.state.currentUserId, limits: s.config.recovery, role: ctx.role })
    yield* judge(s, ctx, (state) => judgeResume(state, reply, verdict))
  })
