/**
 * Silence between two chunks longer than `chunkTimeout` is a stream error (SPEC §5). Each pull
 * of the upstream is timed on its own: `Stream.timeoutOrElse` runs the stream through a merge
 * (a second fiber and a queue hand-off per chunk), which cost more than the rest of a guarded
 * step; one timed pull per chunk of parts costs next to nothing.
 */
import { Duration, Effect, Stream } from "effect"
import { LlmError } from "../llm/LLM.js"

export const chunkTimeoutError = (ms: number): LlmError =>
  new LlmError({ error: { message: `no stream chunk for ${ms} ms (chunkTimeout)`, name: "ChunkTimeoutError", code: "stream_read_error", phase: "stream" } })

/** Fails the stream with a ChunkTimeoutError when one pull waits longer than `ms`. */
export const chunkTimeout =
  (ms: number) =>
  <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | LlmError, R> =>
    Stream.transformPull(self, (pull) =>
      Effect.succeed(Effect.timeoutOrElse(pull, { duration: Duration.millis(ms), orElse: () => Effect.fail(chunkTimeoutError(ms)) }))
    )
