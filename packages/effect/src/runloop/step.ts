/**
 * One step of a run, as the list of its stages. Each stage answers with a `Flow`: `go` on to the
 * next stage, `next` straight to the next step, or `stop` the run (its exit already recorded).
 */
import { nextStep } from "@loopguard/core/step"
import { Effect } from "effect"
import { update } from "./interpret.js"
import type { Flow, RunContext, RunServices } from "./run-context.js"
import { beginStep } from "./stages/begin-step.js"
import { checkCaps } from "./stages/caps.js"
import { recoverOverflow } from "./stages/compact.js"
import { applyCrossStep, runCrossStep } from "./stages/cross-step.js"
import { executeStep, onStepTimeout } from "./stages/execute.js"
import { applyOutcome, applyRollback, captureStructured, recordReply, applyChildPause } from "./stages/outcome.js"
import { applyDecision, decideStep } from "./stages/recovery.js"
import { prepareRequest } from "./stages/step-request.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"

export const runStep = (s: RunServices, ctx: RunContext): Effect.Effect<Flow, SessionStoreError> =>
  Effect.gen(function* () {
    const begun = yield* beginStep(s, ctx)
    if (begun !== "go") return begun
    const { flow, cap } = yield* checkCaps(s, ctx)
    if (flow !== "go") return flow
    const request = yield* prepareRequest(s, ctx, cap)
    const run = yield* executeStep(s, ctx, request)
    if (run === "timeout") return yield* onStepTimeout(s, ctx)
    const reply = recordReply(s, ctx, run, cap)
    const before: ReadonlyArray<Effect.Effect<Flow, SessionStoreError>> = [
      recoverOverflow(s, ctx, reply),
      applyOutcome(s, ctx, run.outcome, cap),
      applyChildPause(s, ctx),
      applyRollback(s, ctx, reply, run.outcome),
      captureStructured(s, ctx, reply)
    ]
    for (const stage of before) {
      const f = yield* stage
      if (f !== "go") return f
    }
    const decided = yield* decideStep(s, ctx, reply, run.outcome)
    // A reply cut for repeating itself goes back to the top with its reminder: not one more text-loop step.
    const after = yield* runCrossStep(s, ctx, reply, decided.action, run.outcome.type === "text-repeat")
    const applied = yield* applyDecision(s, ctx, reply, decided)
    if (applied !== "go") return applied
    return yield* applyCrossStep(s, ctx, after)
  })

/** Steps until a stage stops the run. */
export const runSteps = (s: RunServices, ctx: RunContext): Effect.Effect<null, SessionStoreError> =>
  Effect.gen(function* () {
    while ((yield* runStep(s, ctx)) !== "stop") update(ctx, nextStep)
    return null
  })
