/** Before a step: the user turns a replay recorded for it, the end of a replay, cancellation. */
import { Effect } from "effect"
import { stop, userTurn, type Flow, type RunContext, type RunServices } from "../run-context.js"

export const CANCELLED = { tag: "CancelledError", message: "cancelled by the user" } as const

export const beginStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow> =>
  Effect.gen(function* () {
    for (const text of ctx.input.userTurnsBefore?.(ctx.step) ?? []) yield* userTurn(s, ctx, text)
    // A replay ends when its recorded steps run out; no exit is recorded for that.
    if (ctx.shadow && ctx.step - ctx.firstStep >= ctx.policy.maxSteps) return "stop"
    if (ctx.input.signal?.aborted === true) {
      yield* stop(ctx, "cancelled", CANCELLED)
      return "stop"
    }
    if (!ctx.shadow && ctx.rollback.atLoopStart()) {
      yield* stop(ctx, "rollback_cap", { tag: "RollbackCapError", message: "too many consecutive rollbacks before this step" })
      return "stop"
    }
    return "go"
  })
