/**
 * `loopguardMiddleware(options?)` for the AI SDK's `wrapLanguageModel({ model, middleware })`: a
 * plain AI SDK app gets loopguard's in-stream guards without adopting Effect or the RunLoop.
 *
 * Both `streamText` and `generateText` calls are streamed upstream so the guards see every delta.
 * The middleware adds its own abort signal to the call (beside the caller's), so a trip closes
 * the upstream HTTP request instead of only ceasing to read it.
 */
import type { LanguageModelMiddleware } from "ai"
import { collectGenerateResult } from "./collect.js"
import { guardStream, tripFinish, type StreamedUsage } from "./guard-stream.js"
import type { CallOptions, InnerModel, StreamResult } from "./model-types.js"
import { resolveMiddlewareOptions, type LoopguardMiddlewareOptions, type LoopguardTrip, type ResolvedMiddlewareOptions, type TripIds } from "./options.js"

/** Raised inside the middleware only: the model's response did not start within the chunk timeout. */
class NoFirstChunk extends Error {}

/** What a host of the middleware (the agent helpers) is told beside the stream itself. */
export interface MiddlewareHooks {
  /** A call's stream failed mid-way: what it streamed, and whose model it was. */
  readonly onFailed?: (usage: StreamedUsage, ids: TripIds) => void
}

/** Calls the inner model's `doStream` with an extra abort signal; the guard cuts through it. */
const guardedCall = async (model: InnerModel, params: CallOptions, options: ResolvedMiddlewareOptions, hooks: MiddlewareHooks): Promise<StreamResult> => {
  const upstream = new AbortController()
  const signal = params.abortSignal !== undefined ? AbortSignal.any([params.abortSignal, upstream.signal]) : upstream.signal
  const cut = (trip: LoopguardTrip) => upstream.abort(new Error(`loopguard: ${trip.tripped}`))
  const ids: TripIds = { provider: model.provider, modelId: model.modelId, ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}) }
  let timer: ReturnType<typeof setTimeout> | undefined
  const silence = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new NoFirstChunk()), options.chunkTimeoutMs)))
  try {
    const result = await Promise.race([model.doStream({ ...params, abortSignal: signal }), silence])
    const onFailed = hooks.onFailed === undefined ? undefined : (usage: StreamedUsage) => hooks.onFailed!(usage, ids)
    return { ...result, stream: guardStream({ source: result.stream, options, cut, ids, ...(onFailed !== undefined ? { onFailed } : {}) }) }
  } catch (e) {
    if (!(e instanceof NoFirstChunk)) throw e
    const trip: LoopguardTrip = { tripped: "chunk-timeout", timeoutMs: options.chunkTimeoutMs, partsBefore: 0 }
    cut(trip)
    try {
      options.onTrip({ ...trip, ...ids })
    } catch {
      // A logging hook must not break the caller's call.
    }
    const stream = new ReadableStream({ start: (c) => (c.enqueue(tripFinish(trip, ids)), c.close()) })
    return { stream }
  } finally {
    clearTimeout(timer)
  }
}

/** AI SDK middleware: the repetition guard and the chunk-stall timeout on every call. Options are checked here (throws on a bad one). */
export const loopguardMiddleware = (options: LoopguardMiddlewareOptions = {}): LanguageModelMiddleware => guardedMiddleware(resolveMiddlewareOptions(options))

/** The middleware over options already checked, with its host's hooks. */
export const guardedMiddleware = (resolved: ResolvedMiddlewareOptions, hooks: MiddlewareHooks = {}): LanguageModelMiddleware => ({
  specificationVersion: "v4",
  wrapStream: ({ model, params }) => guardedCall(model, params, resolved, hooks),
  wrapGenerate: async ({ model, params }) => collectGenerateResult(await guardedCall(model, params, resolved, hooks))
})
