/**
 * The replay pair (LLM and Tools, one cursor) fed from a StepFeed instead of an array: the i-th
 * request reads the file up to step i+1 and forgets what lies behind, so a replay holds a few
 * steps whatever the trace's length. Answers exactly as `layerReplay` does for the same steps.
 */
import type { StreamPart } from "@loopguard/core/model"
import { Effect, Layer, Stream } from "effect"
import { LLM, type LlmShape } from "../llm/LLM.js"
import { ReplayCursor } from "../replay/ReplayCursor.js"
import { DEFAULT_REPLAY_MODEL } from "../replay/ReplayLLM.js"
import { EMPTY_TOOL_RESULT, permissiveSpecs, recordedToolResults, type ReplayToolResult } from "../replay/ReplayTools.js"
import { DEFAULT_REPLAY_PARTS, replyToParts } from "../replay/replay-parts.js"
import { Tools, type ToolsShape } from "../tools/Tools.js"
import type { StepFeed } from "./step-feed.js"

export interface StreamedReplayOptions {
  /** How many steps the file holds (known from the check pass). */
  readonly steps: number
  /** Every tool name the trace calls, in order of first call (the tools the replay offers). */
  readonly toolNames: ReadonlyArray<string>
  readonly modelId?: string
  /** Called as each step is asked for (progress of a long replay). */
  readonly onStep?: (step: number) => void
}

/** Steps kept behind the one being replayed: the RunLoop may still ask about the previous one. */
const KEEP_BEHIND = 2

const makeLlm = (feed: StepFeed, cursor: ReplayCursor, options: StreamedReplayOptions): LlmShape => {
  let calls = 0
  return {
    providerId: DEFAULT_REPLAY_MODEL.providerId,
    modelId: options.modelId ?? DEFAULT_REPLAY_MODEL.modelId,
    stream: () =>
      Stream.unwrap(
        Effect.promise(async () => {
          const i = calls++
          cursor.step = i
          options.onStep?.(i)
          await feed.fill(i + 1)
          feed.forgetBefore(i - KEEP_BEHIND)
          const reply = feed.step(i)?.reply
          const parts: ReadonlyArray<StreamPart> =
            reply === undefined
              ? [{ type: "error", error: { message: `replay: no recorded step ${i} (the trace has ${options.steps})`, name: "ReplayExhausted" } }]
              : replyToParts(reply, { chunkChars: DEFAULT_REPLAY_PARTS.chunkChars })
          return Stream.fromIterable(parts)
        })
      )
  }
}

const makeTools = (feed: StepFeed, cursor: ReplayCursor, options: StreamedReplayOptions): ToolsShape => {
  // The recorded results of the step being replayed, each answered once.
  let current: { step: number; results: Array<ReplayToolResult>; used: Set<number> } | null = null
  const resultsNow = () => {
    if (current?.step !== cursor.step) {
      const reply = feed.step(cursor.step)?.reply
      current = { step: cursor.step, results: reply === undefined ? [] : recordedToolResults([reply]), used: new Set() }
    }
    return current
  }
  return {
    specs: permissiveSpecs(options.toolNames),
    execute: (call) =>
      Effect.sync(() => {
        const now = resultsNow()
        const i = now.results.findIndex((r, k) => !now.used.has(k) && r.id === call.id)
        if (i < 0) return EMPTY_TOOL_RESULT
        now.used.add(i)
        return now.results[i]!.result ?? EMPTY_TOOL_RESULT
      })
  }
}

/** Replay LLM and Tools over a StepFeed, sharing one cursor. */
export const layerStreamedReplay = (feed: StepFeed, options: StreamedReplayOptions) => {
  const cursor = new ReplayCursor()
  return Layer.mergeAll(
    Layer.succeed(LLM, LLM.of(makeLlm(feed, cursor, options))),
    Layer.succeed(Tools, Tools.of(makeTools(feed, cursor, options)))
  )
}
