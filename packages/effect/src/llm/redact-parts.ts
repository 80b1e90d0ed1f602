/**
 * Secrets redacted where a model's words enter loopguard: every backend passes its parts
 * through here, so monitors, events, the store and later requests never hold the configured
 * secret values (the API key a hostile server echoes back), even when one is split over
 * several deltas, nor an Authorization/Bearer credential inside an error.
 */
import type { NormalizedError, StreamPart } from "@loopguard/core/model"
import { makeRedactor, makeStreamRedactor, redactDeep, type StreamRedactor } from "@loopguard/core/try-best"
import { Stream } from "effect"
import { LlmError } from "./LLM.js"

interface Pending {
  readonly text: StreamRedactor
  readonly reasoning: StreamRedactor
}

const delta = (type: "text-delta" | "reasoning-delta", text: string): ReadonlyArray<StreamPart> => (text === "" ? [] : [{ type, text }])

const flushText = (s: Pending) => delta("text-delta", s.text.flush())
const flushReasoning = (s: Pending) => delta("reasoning-delta", s.reasoning.flush())

/** A stream stage that redacts the given secret values from text and reasoning deltas, even when a secret is split across deltas. */
export const redactParts =
  (secrets: ReadonlyArray<string>) =>
  <E, R>(parts: Stream.Stream<StreamPart, E, R>): Stream.Stream<StreamPart, E, R> => {
    const redact = makeRedactor(secrets)
    // A tool call's input is what will run: `Authorization: Bearer $TOKEN` in a curl command is
    // the model's intent, not a leaked credential; only the secret values go.
    const redactInput = makeRedactor(secrets, { authorization: false })
    const step = (s: Pending, part: StreamPart): readonly [Pending, ReadonlyArray<StreamPart>] => {
      switch (part.type) {
        case "text-delta":
          return [s, [...flushReasoning(s), ...delta("text-delta", s.text.push(part.text))]]
        case "reasoning-delta":
          return [s, [...flushText(s), ...delta("reasoning-delta", s.reasoning.push(part.text))]]
        case "error":
          return [s, [...flushReasoning(s), ...flushText(s), { ...part, error: redactDeep(part.error, redact) }]]
        case "tool-call":
          return [s, [...flushReasoning(s), ...flushText(s), redactDeep(part, redactInput)]]
        default:
          return [s, [...flushReasoning(s), ...flushText(s), part]]
      }
    }
    return parts.pipe(
      Stream.mapAccum((): Pending => ({ text: makeStreamRedactor(secrets), reasoning: makeStreamRedactor(secrets) }), step, {
        onHalt: (s) => [...flushReasoning(s), ...flushText(s)]
      })
    )
  }

/**
 * A backend's two doors for a server's words, redacted (an error body that echoes the
 * Authorization header, a key streamed back as text): the LlmError for a provider failure, and
 * the stage for its parts. Every backend uses both, so nothing unredacted reaches an event,
 * report, store or later request.
 */
export const llmRedaction = (secrets: ReadonlyArray<string> = []) => {
  const redact = makeRedactor(secrets)
  return {
    error: (error: NormalizedError): LlmError => new LlmError({ error: redactDeep(error, redact) }),
    parts: redactParts(secrets)
  }
}
