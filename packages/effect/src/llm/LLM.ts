/**
 * The model, seen from loopguard: one request in, a Stream of loopguard's own parts out.
 * Backends (AI SDK today) provide it as a Layer; interrupting the stream aborts the request.
 */
import type { AssistantPart, NormalizedError, StreamPart } from "@loopguard/core/model"
import { Context, Data, type Stream } from "effect"

export interface ToolSpec {
  readonly name: string
  readonly description: string
  /** JSON Schema of the tool's input. */
  readonly inputSchema: Readonly<Record<string, unknown>>
}

export type RequestMessage =
  | { readonly role: "user"; readonly text: string }
  | { readonly role: "assistant"; readonly parts: ReadonlyArray<AssistantPart> }

export interface LlmRequest {
  readonly system?: string
  readonly messages: ReadonlyArray<RequestMessage>
  /** Empty = a tool-less request (soft-cap last step, summary call, goal gate). */
  readonly tools: ReadonlyArray<ToolSpec>
  readonly maxOutputTokens?: number
  /**
   * The longest silence allowed before the next part, in ms (`stream.chunkTimeoutMs`). A backend whose
   * `timesChunks` is true fails its stream with `chunkTimeoutError` itself; around any other
   * backend the processor times each pull.
   */
  readonly chunkTimeoutMs?: number
}

/** A failure of the request or of the stream, already normalized. */
export class LlmError extends Data.TaggedError("LlmError")<{ readonly error: NormalizedError }> {
  override get message() {
    return this.error.message
  }
}

/** The stream error for a silence of `ms` between two parts (`stream.chunkTimeoutMs`), whoever times it. */
export const chunkTimeoutError = (ms: number): LlmError =>
  new LlmError({ error: { message: `no stream chunk for ${ms} ms (chunkTimeout)`, name: "ChunkTimeoutError", code: "stream_read_error", phase: "stream" } })

export interface LlmShape {
  readonly providerId: string
  readonly modelId: string
  readonly stream: (request: LlmRequest) => Stream.Stream<StreamPart, LlmError>
  /**
   * The stream enforces `request.chunkTimeoutMs` itself, with a timer on its own reads: cheaper
   * than the processor's race of each pull against a sleep, which forks two fibers per pull.
   */
  readonly timesChunks?: boolean
}

/** The model: one request in, a Stream of loopguard stream parts out; interrupting it aborts the HTTP request. */
export class LLM extends Context.Service<LLM, LlmShape>()("loopguard/LLM") {}
