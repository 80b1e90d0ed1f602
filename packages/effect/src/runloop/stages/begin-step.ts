/** Before a step: the user turns a replay recorded for it, the end of a replay, cancellation. */
import { Effect } from "effect"
import { recordIncident, stop, userTurn, type Flow, type RunContext, type RunServices } from "../run-context.js"
import { CANCELLED } from "./run-limits.js"


export const beginStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow> =>
  Effect.gen(function* () {
    for (const text of ctx.input.userTurnsBefore?.(ctx.step) ?? []) yield* userTurn(s, ctx, text)
    // A replay ends when its recorded steps run out; no exit is recorded for that.
    if (ctx.shadow && ctx.step - ctx.firstStep >= ctx.policy.maxSteps) return "stop"
    if (ctx.input.signal?.aborted === true) {
      yield* stop(ctx, "cancelled", CANCELLED)
      return "stop"
    }
    return "go"
  })

/** The start of a run: the new user turn, if any, the busy status, and a cost cap that cannot work. */
export const startRun = (s: RunServices, ctx: RunContext): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (ctx.input.prompt !== undefined) yield* userTurn(s, ctx, ctx.input.prompt)
    yield* s.events.publish({ type: "session.status", status: "busy", attempt: 0 })
    const budget = ctx.policy.costBudgetUsd
    if (budget !== null && s.price === null && !ctx.shadow) {
      const message = `no price is known for model ${s.modelId}, so the cost cap (loop.costBudgetUsd = ${budget}) cannot trip; add the model under \`prices\` in the config`
      yield* recordIncident(s, ctx, { step: ctx.step, detector: "budget", action: "warn", detail: { reason: "budget_cost", message } })
    }
  })
