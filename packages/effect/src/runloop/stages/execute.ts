/**
 * Runs the step through the SessionProcessor, under `loop.stepTimeoutMs` and raced against the
 * run's abort signal; losing the race interrupts the step (the HTTP request is aborted, tools get
 * their abort signal, what streamed is kept).
 */
import { Duration, Effect } from "effect"
import type { LlmRequest } from "../../llm/LLM.js"
import type { ProcessResult } from "../../processor/SessionProcessor.js"
import { recordIncident, stop, type Flow, type RunContext, type RunServices } from "../run-context.js"
import { CANCELLED } from "./begin-step.js"

/** Completes when the signal aborts; never, without one. */
export const aborted = (signal: AbortSignal | undefined): Effect.Effect<"cancelled"> =>
  signal === undefined
    ? Effect.never
    : Effect.callback<"cancelled">((resume) => {
        if (signal.aborted) return resume(Effect.succeed("cancelled"))
        const onAbort = () => resume(Effect.succeed("cancelled"))
        signal.addEventListener("abort", onAbort, { once: true })
        return Effect.sync(() => signal.removeEventListener("abort", onAbort))
      })

export type StepRun = ProcessResult | "timeout" | "cancelled"

export const executeStep = (s: RunServices, ctx: RunContext, request: LlmRequest): Effect.Effect<StepRun> => {
  const process = s.processor.process({
    sessionId: ctx.input.sessionId,
    parentId: ctx.currentUserId,
    step: ctx.step,
    request,
    messageId: (attempt) => ctx.nextId(attempt === 1 ? "a" : `a${attempt}-`),
    monitors: ctx.monitors,
    nextStatusAttempt: () => (ctx.statusAttempt += 1),
    localTools: ctx.localTools
  })
  const limit = s.config.loop.stepTimeoutMs
  const timed: Effect.Effect<ProcessResult | "timeout"> =
    limit === null ? process : process.pipe(Effect.timeoutOrElse({ duration: Duration.millis(limit), orElse: () => Effect.succeed("timeout" as const) }))
  return Effect.raceFirst(timed, aborted(ctx.input.signal))
}

/** A step that produced no reply: cancelled ends the run; a timeout ends it too unless replaying. */
export const onNoReply = (s: RunServices, ctx: RunContext, run: "timeout" | "cancelled"): Effect.Effect<Flow> =>
  Effect.gen(function* () {
    if (run === "cancelled") {
      yield* stop(ctx, "cancelled", CANCELLED)
      return "stop"
    }
    const limit = s.config.loop.stepTimeoutMs
    yield* recordIncident(s, ctx, { step: ctx.step, detector: "timeout", action: "stop", detail: { stepTimeoutMs: limit } })
    const flow = yield* stop(ctx, "timeout", { tag: "StepTimeoutError", message: `step ${ctx.step} ran past ${limit} ms` })
    return flow === "stop" ? "stop" : "next"
  })
