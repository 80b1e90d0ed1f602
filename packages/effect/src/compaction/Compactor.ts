/**
 * Writes the summary a context compaction replaces older history with: one tool-less request to
 * the session's model over the part to summarise. A Context.Service so a runtime can bring its own
 * summariser (another model, a cheaper one) with a Layer.
 */
import { COMPACTION_REQUEST } from "@loopguard/core/context"
import { type Message, type Usage } from "@loopguard/core/model"
import { Context, Data, Duration, Effect, Layer, Stream } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { LLM, type LlmShape, type RequestMessage } from "../llm/LLM.js"

/** The summary request of a compaction failed (the run goes on uncompacted). */
export class CompactionError extends Data.TaggedError("CompactionError")<{ readonly message: string }> {}

export interface CompactionSummary {
  readonly summary: string
  readonly usage?: Usage
}

export interface CompactorShape {
  /** Summarises `older` with `llm` (default: the session's model). */
  readonly summarise: (older: ReadonlyArray<Message>, llm?: LlmShape) => Effect.Effect<CompactionSummary, CompactionError>
}

/** Request messages already made, per stored message object (stored messages are immutable). */
const requestMessageOf = new WeakMap<Message, RequestMessage>()

/**
 * The stored messages as request messages (user text; assistant parts with their tool results).
 * Each step sends the whole history again; the per-message objects are made once, not per step.
 */
export const toRequestMessages = (messages: ReadonlyArray<Message>): Array<RequestMessage> =>
  messages.map((m) => {
    let r = requestMessageOf.get(m)
    if (r === undefined) requestMessageOf.set(m, (r = m.role === "user" ? { role: "user", text: m.text } : { role: "assistant", parts: m.parts }))
    return r
  })

/** The note a summary cut at `compaction.maxSummaryChars` ends with. */
export const summaryCutNote = (maxChars: number): string => `\n[summary cut at ${maxChars} characters (compaction.maxSummaryChars)]`

/**
 * The summary's text (at most `maxChars`: text past it is not even kept in memory) and usage; a
 * silence of `chunkTimeoutMs` between chunks fails it like a step's stream.
 */
const collect = (llm: LlmShape, older: ReadonlyArray<Message>, chunkTimeoutMs: number, maxChars: number) =>
  llm.stream({ messages: [...toRequestMessages(older), { role: "user", text: COMPACTION_REQUEST }], tools: [] }).pipe(
    Stream.timeoutOrElse({
      duration: Duration.millis(chunkTimeoutMs),
      orElse: () => Stream.fail(new CompactionError({ message: `no chunk of the summary for ${chunkTimeoutMs} ms (stream.chunkTimeoutMs)` }))
    }),
    Stream.runFold(
      (): { text: string; usage?: Usage; error?: string } => ({ text: "" }),
      (acc, part) =>
        part.type === "text-delta"
          ? acc.text.length > maxChars
            ? acc
            : { ...acc, text: acc.text + part.text }
          : part.type === "finish" && part.usage !== undefined
            ? { ...acc, usage: part.usage }
            : part.type === "error"
              ? { ...acc, error: part.error.message }
              : acc
    ),
    Effect.mapError((e) => (e instanceof CompactionError ? e : new CompactionError({ message: e.message })))
  )

/** Writes the summary a context compaction replaces older history with. */
export class Compactor extends Context.Service<Compactor, CompactorShape>()("loopguard/Compactor") {
  static readonly layer = Layer.effect(
    Compactor,
    Effect.gen(function* () {
      const session = yield* LLM
      const config = yield* ConfigService
      return Compactor.of({
        summarise: Effect.fn("Compactor.summarise")(function* (older: ReadonlyArray<Message>, llm?: LlmShape) {
          const max = config.compaction.maxSummaryChars
          const r = yield* collect(llm ?? session, older, config.stream.chunkTimeoutMs, max)
          if (r.error !== undefined) return yield* new CompactionError({ message: r.error })
          if (r.text.trim() === "") return yield* new CompactionError({ message: "the summary request returned no text" })
          const summary = r.text.length > max ? r.text.slice(0, max) + summaryCutNote(max) : r.text
          return { summary, ...(r.usage !== undefined ? { usage: r.usage } : {}) }
        })
      })
    })
  )
}
