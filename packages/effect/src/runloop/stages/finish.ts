/** The end of every run, whatever the way out: one report, the idle status, `run.finished`. */
import { resolveTryBestOptions } from "@loopguard/core/try-best"
import { Effect } from "effect"
import { makeReport } from "../report.js"
import { stop, type RunContext, type RunServices } from "../run-context.js"
import type { RunResult } from "../run-types.js"
import { tryBestOptionsOf } from "@loopguard/core/judge"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export const finishRun = (s: RunServices, ctx: RunContext): Effect.Effect<RunResult, SessionStoreError> =>
  Effect.gen(function* () {
    const report = makeReport({
      exit: ctx.exit,
      shadow: ctx.shadow,
      stepsUsed: ctx.meter.stepsUsed,
      meter: ctx.meter,
      messages: yield* s.store.messages(ctx.input.sessionId),
      lastReply: ctx.lastReply,
      incidents: ctx.incidents,
      retries: ctx.retries,
      savedAt: s.store.location(ctx.input.sessionId),
      ...(ctx.input.workspace !== undefined ? { workspace: ctx.input.workspace } : {}),
      toolKinds: resolveTryBestOptions(tryBestOptionsOf(s.config)),
      subagents: ctx.subagents
    })
    yield* s.events.publish({ type: "session.status", status: "idle", attempt: 0 })
    yield* s.events.publish({ type: "run.finished", report })
    return { report, incidents: ctx.incidents, exit: ctx.exit, ...(ctx.structured ? { structured: ctx.structured.value } : {}) }
  })

export const INTERRUPTED = { tag: "CancelledError", message: "the run was interrupted" } as const

/**
 * The run's fiber was interrupted by its caller: the running step was already interrupted (its
 * request aborted, its tools signalled, what streamed stored); the run still ends as `cancelled`
 * with its report published, though nobody receives the result.
 */
export const finishInterrupted = (s: RunServices, ctx: RunContext): Effect.Effect<void, SessionStoreError> =>
  Effect.gen(function* () {
    yield* stop(ctx, "cancelled", INTERRUPTED)
    yield* finishRun(s, ctx)
  })
