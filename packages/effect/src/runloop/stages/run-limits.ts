/**
 * What ends a run from outside its steps: the caller's abort signal (Ctrl-C) and the whole-run wall
 * clock (`loop.maxWallMs`). Raced against the steps, so whatever stage is running — a model
 * request, a tool, the completion check — is interrupted (the request aborted, tools get their abort
 * signal) and what it already stored is kept.
 */
import { Duration, Effect } from "effect"
import type { ExitReason } from "@loopguard/core/model"
import { estimateTokens } from "@loopguard/core/context"
import type { AssistantMessage } from "@loopguard/core/model"
import { fileIncident, judgeInterruptedReply, stopWith } from "@loopguard/core/step"
import { act, update } from "../interpret.js"
import { activePrice, type ExitError, type RunContext, type RunServices } from "../run-context.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"
import { describeCancel, type CancelCause } from "../cancel-cause.js"

export interface ExternalStop {
  readonly reason: ExitReason
  readonly error: ExitError
  /** Why a cancelled run was cancelled (absent for the wall clock). */
  readonly cause?: CancelCause
}

/** The cancelled exit for an aborted signal: the message names the cause (cancel-cause.ts). */
export const cancelledBy = (signal: AbortSignal): ExternalStop => {
  const { cause, message } = describeCancel(signal.reason)
  return { reason: "cancelled", error: { tag: "CancelledError", message, uiMessage: message }, cause }
}

/** Completes when the signal aborts; never, without one. */
export const aborted = (signal: AbortSignal | undefined): Effect.Effect<ExternalStop> =>
  signal === undefined
    ? Effect.never
    : Effect.callback<ExternalStop>((resume) => {
        const done = () => resume(Effect.succeed(cancelledBy(signal)))
        if (signal.aborted) return done()
        signal.addEventListener("abort", done, { once: true })
        return Effect.sync(() => signal.removeEventListener("abort", done))
      })

/** Completes when the run has used `loop.maxWallMs`; never without one, nor when replaying. */
export const wallClock = (s: RunServices, ctx: RunContext): Effect.Effect<ExternalStop, SessionStoreError> => {
  const limit = s.config.loop.maxWallMs
  if (limit === null || !ctx.mode.wallClock) return Effect.never
  return Effect.sleep(Duration.millis(limit)).pipe(
    Effect.map(() => ({
      reason: "time_limit" as const,
      error: { tag: "TimeLimitError", message: `the run used its wall-clock limit of ${limit} ms (loop.maxWallMs) during step ${ctx.state.step}` }
    }))
  )
}

export const externalStop = (s: RunServices, ctx: RunContext): Effect.Effect<ExternalStop, SessionStoreError> =>
  Effect.raceFirst(aborted(ctx.input.signal), wallClock(s, ctx))

/**
 * The reply the stop cut while it streamed, as the processor saved it (a `CancelledError` reply of
 * this step), and the history it answered; null when nothing had streamed, or the step had ended,
 * or the store cannot be read: a stop often comes because the store stopped answering, and the
 * count of one step must not cost the run its report.
 */
const cutReply = (s: RunServices, ctx: RunContext) =>
  s.store.messages(ctx.input.sessionId).pipe(
    Effect.map((messages) => {
      const last = messages.at(-1)
      if (last?.role !== "assistant" || last.step !== ctx.state.step || last.error?.name !== "CancelledError") return null
      return { reply: last as AssistantMessage, prompt: () => estimateTokens(JSON.stringify(messages.slice(0, -1))) }
    }),
    Effect.orElseSucceed(() => null)
  )

/** Files the outside stop as the run's exit, under the step it interrupted; a reply it cut mid-stream is counted as that step. */
export const endFromOutside = (s: RunServices, ctx: RunContext, ended: ExternalStop): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    const cut = yield* cutReply(s, ctx)
    if (cut !== null) update(ctx, (state) => judgeInterruptedReply(state, cut.reply, activePrice(s, ctx), cut.prompt))
    const detector = ended.reason === "time_limit" ? "time-limit" : "cancel"
    const detail = ended.cause !== undefined ? { reason: ended.reason, cause: ended.cause } : { reason: ended.reason }
    yield* act(s, ctx, [fileIncident({ step: ctx.state.step, detector, action: "stop", detail }), stopWith(ended.reason, ended.error)])
  })
