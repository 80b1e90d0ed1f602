/**
 * An LLM that answers the i-th request with the i-th recorded reply (audit, tests). It never
 * looks at the request: a shadow replay asks exactly once per recorded step.
 */
import type { AssistantMessage, StreamPart } from "@loopguard/core/model"
import { Layer, Stream } from "effect"
import { LLM, type LlmShape } from "../llm/LLM.js"
import { ReplayCursor } from "./ReplayCursor.js"
import { DEFAULT_REPLAY_PARTS, replyToParts, type ReplayPartsOptions } from "./replay-parts.js"

export interface ReplayLlmOptions extends Partial<ReplayPartsOptions> {
  readonly providerId?: string
  /** Matters to the classifier (gpt-* reasoning-only finals) and the price table. */
  readonly modelId?: string
  readonly cursor?: ReplayCursor
}

export const DEFAULT_REPLAY_MODEL = { providerId: "replay", modelId: "replay" } as const

/** An LLM that answers the i-th request with the i-th recorded reply. */
export const makeReplayLLM = (steps: ReadonlyArray<AssistantMessage>, options: ReplayLlmOptions = {}): LlmShape => {
  const cursor = options.cursor ?? new ReplayCursor()
  const partsOptions: ReplayPartsOptions = { chunkChars: options.chunkChars ?? DEFAULT_REPLAY_PARTS.chunkChars }
  let calls = 0
  return {
    providerId: options.providerId ?? DEFAULT_REPLAY_MODEL.providerId,
    modelId: options.modelId ?? DEFAULT_REPLAY_MODEL.modelId,
    stream: () =>
      Stream.suspend(() => {
        const i = calls++
        cursor.step = i
        const reply = steps[i]
        const parts: ReadonlyArray<StreamPart> =
          reply === undefined
            ? [{ type: "error", error: { message: `replay: no recorded step ${i} (the trace has ${steps.length})`, name: "ReplayExhausted" } }]
            : replyToParts(reply, partsOptions)
        return Stream.fromIterable(parts)
      })
  }
}

/** The replay LLM as a Layer. */
export const layerReplayLLM = (steps: ReadonlyArray<AssistantMessage>, options: ReplayLlmOptions = {}) =>
  Layer.sync(LLM, () => LLM.of(makeReplayLLM(steps, options)))
