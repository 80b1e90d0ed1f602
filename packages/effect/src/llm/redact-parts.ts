/**
 * Secrets redacted where a model's words enter loopguard: every backend passes its parts
 * through here, so monitors, events, the store and later requests never hold the configured
 * secret values (the API key a hostile server echoes back), even when one is split over
 * several deltas, nor an Authorization/Bearer credential inside an error.
 */
import type { StreamPart } from "@loopguard/core/model"
import { makeRedactor, makeStreamRedactor, redactDeep, type StreamRedactor } from "@loopguard/core/try-best"
import { Stream } from "effect"

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
