/**
 * What the processor's outcome and the finished reply say before any classification: usage is
 * metered, a pause / denied doom loop / summary request ends the run, a rollback pops the reply,
 * a structured-output call is the final result. The judging is core's (`@loopguard/core/step`).
 */
import { streamedUsage } from "@loopguard/core/caps"
import { type AssistantMessage } from "@loopguard/core/model"
import { judgeChildPause, judgeOutcome, judgeReply, judgeRollback, judgeStructured, type StepCap } from "@loopguard/core/step"
import { Effect } from "effect"
import type { ProcessResult, StepOutcome } from "../../processor/SessionProcessor.js"
import { structuredToolName } from "../local-tools.js"
import { judge, update } from "../interpret.js"
import { activePrice, type Flow, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

/** Meters the reply (the summary request counts as made) and keeps it as the run's last reply. */
export const recordReply = (s: RunServices, ctx: RunContext, result: ProcessResult, cap: StepCap): AssistantMessage => {
  const reply = result.message
  // The processor already published its incidents; they join the report here.
  // A processor of the caller's own (a Layer override) may not say what the step cost: the same estimate, without the prompt's.
  const usage = result.usage ?? streamedUsage(reply)
  const facts = { reply, attempts: result.attempts, incidents: result.incidents, usage, replayedUsage: result.replayedUsage ?? [], price: activePrice(s, ctx) }
  update(ctx, (state) => judgeReply(state, facts, cap))
  return reply
}

const flowOf = <A>(judged: Effect.Effect<{ readonly flow: Flow } & A, SessionStoreError>): Effect.Effect<Flow, SessionStoreError> => Effect.map(judged, ({ flow }) => flow)

export const applyOutcome = (s: RunServices, ctx: RunContext, outcome: StepOutcome, cap: StepCap): Effect.Effect<Flow, SessionStoreError> =>
  flowOf(judge(s, ctx, (state) => judgeOutcome(state, outcome, cap)))

/**
 * A sub-agent that paused hands its pause up: the choice (stop, continue, hand off) is the
 * person's, not the parent model's, so the parent's turn pauses with the child's incident.
 */
export const applyChildPause = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> => flowOf(judge(s, ctx, judgeChildPause))

/** Rollback (docs/rollback.md): a popped reply leaves every later request and costs no turn. */
export const applyRollback = (s: RunServices, ctx: RunContext, reply: AssistantMessage, outcome: StepOutcome): Effect.Effect<Flow, SessionStoreError> =>
  Effect.suspend(() => {
    const rolled = outcome.type === "continue" ? ctx.rollback.afterStep(reply) : null
    return flowOf(judge(s, ctx, (state) => judgeRollback(state, rolled, reply, s.config.rollback.maxConsecutiveRollbacks)))
  })

/** A completed call of the structured-output tool is the run's result. */
export const captureStructured = (s: RunServices, ctx: RunContext, reply: AssistantMessage): Effect.Effect<Flow, SessionStoreError> =>
  flowOf(judge(s, ctx, (state) => judgeStructured(state, reply, ctx.input.structuredOutput ? structuredToolName(ctx.input) : null)))
