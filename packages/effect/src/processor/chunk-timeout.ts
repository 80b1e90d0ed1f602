/**
 * Silence between two chunks longer than `chunkTimeout` is a stream error (docs/retry.md). Each pull
 * of the upstream is timed on its own: `Stream.timeoutOrElse` runs the stream through a merge
 * (a second fiber and a queue hand-off per chunk), which cost more than the rest of a guarded
 * step. A timed pull still forks two fibers (the pull and a sleep), so a backend that can time
 * its own reads says so (`LlmShape.timesChunks`) and is not wrapped.
 */
import { Duration, Effect, Stream } from "effect"
import { chunkTimeoutError, type LlmError } from "../llm/LLM.js"

/** Fails the stream with a ChunkTimeoutError when one pull waits longer than `ms`. */
export const chunkTimeout =
  (ms: number) =>
  <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | LlmError, R> =>
    Stream.transformPull(self, (pull) =>
      Effect.succeed(Effect.timeoutOrElse(pull, { duration: Duration.millis(ms), orElse: () => Effect.fail(chunkTimeoutError(ms)) }))
    )
