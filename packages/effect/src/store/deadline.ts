/**
 * Deadlines for calls into a database that may have gone away. A stopped or unreachable server
 * can leave a driver waiting forever, and an interrupted driver call (or a connection pool
 * shutting down) may not let go either; so the call runs in its own fiber, the caller waits for
 * it at most `ms`, and past that the call is interrupted in the background: never waited for.
 */
import { Duration, Effect, Exit, Fiber, Scope } from "effect"

/** `self`, or `onTimeout` once `ms` have passed; the abandoned call is interrupted without waiting for it. */
export const detachedTimeout = <A, E, R, E2>(self: Effect.Effect<A, E, R>, ms: number, onTimeout: () => Effect.Effect<A, E2>): Effect.Effect<A, E | E2, R> =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkDetach(self)
    return yield* Fiber.join(fiber).pipe(
      Effect.timeoutOrElse({ duration: Duration.millis(ms), orElse: onTimeout }),
      Effect.onExit(() => Effect.sync(() => fiber.interruptUnsafe()))
    )
  })

/**
 * A scope for a database client whose closing takes at most `ms`: the client's own finalizers
 * (a pool saying goodbye over sockets nobody answers) run in the background past that. Closed
 * with the caller's scope.
 */
export const boundedScope = (ms: number): Effect.Effect<Scope.Closeable, never, Scope.Scope> =>
  Effect.acquireRelease(Scope.make(), (inner) => detachedTimeout(Scope.close(inner, Exit.void), ms, () => Effect.void))
