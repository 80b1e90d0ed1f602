/**
 * One model call through the AI SDK, as a stream of the SDK's parts.
 *
 * loopguard owns the step loop, retries and tool runs, so it needs one call, not `streamText`'s
 * loop around it. `experimental_streamLanguageModelCall` is the primitive `streamText` runs each
 * step on: the same prompt conversion, tool preparation and tool-call parsing, without the step
 * bookkeeping, the tool-callback stage and the result's tees. Those stages cost about half of a
 * bare `streamText` consumer's time on a long reply (docs/performance-changelog.md, "Fifth pass").
 * The export is experimental, so an SDK without it gets `streamText`'s `fullStream` instead; both
 * kinds of part are mapped in map-stream.ts.
 */
import * as ai from "ai"
import type { LanguageModel, LanguageModelStreamPart, ModelMessage, TextStreamPart, ToolSet } from "ai"

/** A part of either stream: `streamText`'s `fullStream` or a single language model call. */
export type ModelCallPart = TextStreamPart<ToolSet> | LanguageModelStreamPart<ToolSet>

export interface ModelCallInput {
  readonly model: LanguageModel
  readonly messages: Array<ModelMessage>
  readonly instructions?: string
  readonly tools?: ToolSet
  readonly maxOutputTokens?: number
  readonly abortSignal: AbortSignal
}

export type SingleCall = (input: ModelCallInput) => Promise<{ readonly stream: ReadableStream<LanguageModelStreamPart<ToolSet>> }>

/** The SDK's single-call primitive, or null when this version of `ai` does not export it. */
export const singleCall = (): SingleCall | null => {
  const candidate: unknown = (ai as Record<string, unknown>)["experimental_streamLanguageModelCall"]
  return typeof candidate === "function" ? (candidate as SingleCall) : null
}

/** Looked up once: the installed `ai` does not change while loopguard runs. */
const INSTALLED_SINGLE_CALL = singleCall()

/** A call that failed before streaming (HTTP 429, a bad prompt), told the way `streamText` tells it: a start, then the error. */
const failedCall = (error: unknown): ReadableStream<ModelCallPart> =>
  new ReadableStream({
    start: (controller) => {
      controller.enqueue({ type: "start" })
      controller.enqueue({ type: "error", error })
      controller.close()
    }
  })

/**
 * Opens one model call. The promise settles when the response headers arrive; a call that fails
 * before that settles with a stream of a start and an error part, as `streamText` reports it.
 */
export const openModelCall = (input: ModelCallInput, call: SingleCall | null = INSTALLED_SINGLE_CALL): Promise<ReadableStream<ModelCallPart>> => {
  if (call === null) return Promise.resolve(viaStreamText(input))
  try {
    return call(input).then(
      (result) => result.stream as ReadableStream<ModelCallPart>,
      (error: unknown) => failedCall(error)
    )
  } catch (error) {
    return Promise.resolve(failedCall(error))
  }
}

/** The fallback: `streamText` with its retries off and its error logging silenced (errors arrive as parts). */
export const viaStreamText = (input: ModelCallInput): ReadableStream<ModelCallPart> =>
  ai.streamText({ ...input, maxRetries: 0, onError: () => {} }).fullStream as ReadableStream<ModelCallPart>
