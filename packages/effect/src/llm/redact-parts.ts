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

type DeltaType = "text-delta" | "reasoning-delta"

/** Appends what a redactor let through; the part itself when nothing changed (no copy per delta). */
const pushDelta = (out: Array<StreamPart>, type: DeltaType, text: string, original?: StreamPart): void => {
  if (text === "") return
  out.push(original !== undefined && original.type === type && original.text === text ? original : { type, text })
}

const flushInto = (out: Array<StreamPart>, s: Pending, keep: "text" | "reasoning" | "none"): void => {
  if (keep !== "reasoning") pushDelta(out, "reasoning-delta", s.reasoning.flush())
  if (keep !== "text") pushDelta(out, "text-delta", s.text.flush())
}

/**
 * A stream stage that redacts the given secret values from text and reasoning deltas, even when a
 * secret is split across deltas. One plain loop per chunk of parts: a long reply is tens of
 * thousands of deltas, and arrays built per delta were a visible share of a guarded step.
 */
export const redactParts =
  (secrets: ReadonlyArray<string>) =>
  <E, R>(parts: Stream.Stream<StreamPart, E, R>): Stream.Stream<StreamPart, E, R> => {
    const redact = makeRedactor(secrets)
    // A tool call's input is what will run: `Authorization: Bearer $TOKEN` in a curl command is
    // the model's intent, not a leaked credential; only the secret values go.
    const redactInput = makeRedactor(secrets, { authorization: false })
    const step = (s: Pending, chunk: ReadonlyArray<StreamPart>): readonly [Pending, ReadonlyArray<StreamPart>] => {
      const out: Array<StreamPart> = []
      for (const part of chunk) {
        switch (part.type) {
          case "text-delta":
            flushInto(out, s, "text")
            pushDelta(out, "text-delta", s.text.push(part.text), part)
            break
          case "reasoning-delta":
            flushInto(out, s, "reasoning")
            pushDelta(out, "reasoning-delta", s.reasoning.push(part.text), part)
            break
          case "error":
            flushInto(out, s, "none")
            out.push({ ...part, error: redactDeep(part.error, redact) })
            break
          case "tool-call":
            flushInto(out, s, "none")
            out.push(redactDeep(part, redactInput))
            break
          default:
            flushInto(out, s, "none")
            out.push(part)
        }
      }
      return [s, out]
    }
    return parts.pipe(
      Stream.mapAccumArray((): Pending => ({ text: makeStreamRedactor(secrets), reasoning: makeStreamRedactor(secrets) }), step, {
        onHalt: (s) => {
          const out: Array<StreamPart> = []
          flushInto(out, s, "none")
          return out
        }
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
