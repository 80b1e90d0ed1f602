/**
 * The steps of a log file, streamed once more after its audit, for whoever shows them (the run's
 * page): each step is handed to `f` as it is read and then forgotten, so a page of a long run
 * holds what `f` keeps of each step, not the file.
 */
import type { TraceStep } from "@loopguard/core/trace"
import { Effect } from "effect"
import { StepFeed } from "./step-feed.js"
import type { TraceSource } from "./check-trace.js"
import { cannotRead, openTraceLines } from "./trace-lines.js"

/** Calls `f` with every step of `source` in order; fails with the reason when the file cannot be read. */
export const forEachStep = (source: TraceSource, maxLineBytes: number, f: (step: TraceStep) => void): Effect.Effect<number, string> =>
  Effect.scoped(
    Effect.gen(function* () {
      const lines = yield* openTraceLines(source, maxLineBytes)
      const feed = new StepFeed(lines, source.name, source.format)
      return yield* Effect.tryPromise({
        try: async () => {
          let i = 0
          for (;;) {
            await feed.fill(i)
            const step = feed.step(i)
            if (step === undefined) return i
            f(step)
            feed.forgetBefore(++i)
          }
        },
        catch: (e) => cannotRead(source.name, e)
      })
    })
  )
