/**
 * Ctrl-C owned by a command for as long as it runs. The runtime's own listener interrupts the
 * whole program at the first Ctrl-C, which would lose the turn's report; `run` and `chat` cancel
 * the turn first and quit only at the second. The runtime's listeners are put back on release.
 */
import { Effect, type Scope } from "effect"

export const takeOverSigint = (onSigint: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previous = process.listeners("SIGINT")
      for (const l of previous) process.off("SIGINT", l)
      process.on("SIGINT", onSigint)
      return previous
    }),
    (previous) =>
      Effect.sync(() => {
        process.off("SIGINT", onSigint)
        for (const l of previous) process.on("SIGINT", l)
      })
  ).pipe(Effect.asVoid)
