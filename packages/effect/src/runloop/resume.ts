/**
 * The first stage of a run on a session that already has history (docs/store.md):
 * 1. calls written ahead but never answered (cancel, crash) are rewritten as interrupted, so the
 *    model is told they started — never silently dropped, never silently re-run;
 * 2. a run that resumes without a new user turn first re-examines the last reply, as the top of
 *    MiMo Code's loop does: a cut-off or empty reply gets its reminder, a final answer
 *    ends the run without a request, anything else goes on with the next request.
 */
import { classifyStep, decideRecovery, hasPendingClientTool, initRecovery, type AgentRole } from "@loopguard/core/classify"
import { markInterruptedCalls, type AssistantMessage, type ExclusionReason, type ExitReason, type Message, type ReminderKind } from "@loopguard/core/model"
import { Effect } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { recordIncident, remind, stop, type RunContext, type RunServices } from "./run-context.js"

export type ResumeVerdict =
  | { readonly type: "request" }
  | { readonly type: "remind"; readonly kind: ReminderKind; readonly text: string; readonly exclude?: ExclusionReason }
  | { readonly type: "final"; readonly reply: AssistantMessage }
  | { readonly type: "exit"; readonly reason: ExitReason; readonly error?: { tag: string; message: string } }

/** The last reply before any new turn, when the session ends on one (reminders after it count as a turn). */
const lastReplyOf = (history: ReadonlyArray<Message>): AssistantMessage | null => {
  const last = [...history].reverse().find((m) => !(m.role === "assistant" && m.excluded !== undefined))
  return last !== undefined && last.role === "assistant" ? last : null
}

/** What the top of the loop decides about the reply a resumed session ends on. Pure. */
export const reexamineLastReply = (input: {
  readonly history: ReadonlyArray<Message>
  readonly currentUserId: string
  readonly config: LoopguardConfig
  readonly role: AgentRole
}): { readonly reply: AssistantMessage | null; readonly verdict: ResumeVerdict } => {
  const reply = lastReplyOf(input.history)
  if (reply === null) return { reply, verdict: { type: "request" } }
  // A reply cut off by the interruption itself is not the model's doing: ask again.
  if (reply.error?.aborted === true) return { reply, verdict: { type: "request" } }
  const classification = classifyStep({ reply, currentUserId: input.currentUserId })
  const { action } = decideRecovery(initRecovery(), {
    classification,
    ...(reply.finish !== undefined ? { finish: reply.finish } : {}),
    pendingClientTool: hasPendingClientTool(reply),
    outcome: "normal",
    structuredOutput: false,
    role: input.role,
    limits: input.config.recovery,
    ...(reply.error !== undefined ? { error: reply.error } : {})
  })
  switch (action.type) {
    case "remind":
      return { reply, verdict: { type: "remind", kind: action.kind, text: action.text, ...(action.exclude !== undefined ? { exclude: action.exclude } : {}) } }
    case "final":
      return { reply, verdict: { type: "final", reply } }
    case "exit":
      return { reply, verdict: { type: "exit", reason: action.reason, ...(action.error !== undefined ? { error: action.error } : {}) } }
    default:
      return { reply, verdict: { type: "request" } }
  }
}

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
    for (const c of calls) {
      yield* recordIncident(s, ctx, { step: c.step, detector: "resume", action: "interrupted-call", detail: { callId: c.callId, tool: c.name, input: c.input } })
    }
    const byId = new Map(replies.map((r) => [r.id, r]))
    return history.map((m) => byId.get(m.id) ?? m)
  })

/**
 * The resume stage, before the first step of an enforcing run on a session with history: repair
 * interrupted calls; then, with no new user turn, act on the last reply (a reminder, or the end).
 */
export const resumeSession = (s: RunServices, ctx: RunContext): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    if (ctx.shadow) return
    const history = yield* s.store.messages(ctx.input.sessionId)
    if (history.length === 0) return
    const repaired = yield* repairInterruptedCalls(s, ctx, history)
    if (ctx.input.prompt !== undefined) return
    const { reply, verdict } = reexamineLastReply({ history: repaired, currentUserId: ctx.currentUserId, config: s.config, role: ctx.role })
    if (reply === null || verdict.type === "request") return
    yield* recordIncident(s, ctx, { step: reply.step, detector: "resume", action: `reexamined:${verdict.type}`, detail: verdict.type === "remind" ? { kind: verdict.kind } : {} })
    if (verdict.type === "remind") {
      if (verdict.exclude !== undefined) yield* s.store.exclude(ctx.input.sessionId, reply.id, verdict.exclude)
      yield* remind(s, ctx, verdict.kind, verdict.text)
    } else if (verdict.type === "final") {
      ctx.lastReply = verdict.reply
      yield* stop(ctx, "final")
    } else yield* stop(ctx, verdict.reason, verdict.error)
  })
