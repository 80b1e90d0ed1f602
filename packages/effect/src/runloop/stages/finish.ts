/** The end of every run, whatever the way out: one report, the idle status, `run.finished`. */
import { resolveTryBestOptions } from "@loopguard/core/try-best"
import { Effect } from "effect"
import { makeReport } from "../report.js"
import { stopWith } from "@loopguard/core/step"
import { act } from "../interpret.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { RunResult } from "../run-types.js"
import { tryBestOptionsOf } from "@loopguard/core/judge"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const finishRun = (s: RunServices, ctx: RunContext): Effect.Effect<RunResult, SessionStoreError> =>
  Effect.gen(function* () {
    const messages = yield* s.store.messages(ctx.input.sessionId)
    const state = ctx.state
    const report = makeReport({
      exit: state.exit,
      shadow: !ctx.mode.enforce,
      stepsUsed: state.meter.stepsUsed,
      meter: state.meter,
      messages,
      lastReply: state.lastReply,
      incidents: state.incidents,
      retries: state.retries,
      savedAt: s.store.location(ctx.input.sessionId),
      ...(ctx.input.workspace !== undefined ? { workspace: ctx.input.workspace } : {}),
      toolKinds: resolveTryBestOptions(tryBestOptionsOf(s.config)),
      subagents: state.subagents
    })
    yield* s.events.publish({ type: "session.status", status: "idle", attempt: 0 })
    yield* s.events.publish({ type: "run.finished", report })
    return { report, incidents: state.incidents, exit: state.exit, ...(state.structured ? { structured: state.structured.value } : {}) }
  })

export const INTERRUPTED = { tag: "CancelledError", message: "the run was interrupted" } as const

/**
 * The run's fiber was interrupted by its caller: the running step was already interrupted (its
 * request aborted, its tools signalled, what streamed stored); the run still ends as `cancelled`
 * with its report published, though nobody receives the result.
 */
export const finishInterrupted = (s: RunServices, ctx: RunContext): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    yield* act(s, ctx, [stopWith("cancelled", INTERRUPTED)])
    yield* finishRun(s, ctx)
  })
