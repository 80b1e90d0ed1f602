/** The end of every run, whatever the way out: one report, the idle status, `run.finished`. */
import { Effect } from "effect"
import { makeReport } from "../report.js"
import type { RunContext, RunServices } from "../run-context.js"
import type { RunResult } from "../run-types.js"

export const finishRun = (s: RunServices, ctx: RunContext): Effect.Effect<RunResult> =>
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
      savedAt: s.store.location(ctx.input.sessionId)
    })
    yield* s.events.publish({ type: "session.status", status: "idle", attempt: 0 })
    yield* s.events.publish({ type: "run.finished", report })
    return { report, incidents: ctx.incidents, exit: ctx.exit, ...(ctx.structured ? { structured: ctx.structured.value } : {}) }
  })
