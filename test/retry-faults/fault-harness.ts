/**
 * `makeHarness` with one extra seam: a decorator around the real HTTP-backed LLM service.
 *
 * Needed for one fault only. @ai-sdk/openai-compatible emits a `tool-call` when the response body
 * ends (it finalizes tool calls in its flush), so over this protocol no transport failure can come
 * after a tool call. Providers that close tool blocks mid-stream (Anthropic's content_block_stop)
 * can fail after one; `cutAfterToolCall` reproduces that: the real HTTP stream up to its tool call,
 * then the connection-reset error that a mid-stream reset produces on this stack.
 */
import type { Script } from "@loopguard/ai-sdk/testing"
import type { NormalizedError } from "@loopguard/core/model"
import { LlmError, type LlmShape, type LoopguardConfig, type ToolDefinition } from "@loopguard/effect"
import { Effect, Stream, type Scope } from "effect"
import { harness, makeHarness, type Harness } from "../harness.js"

export const makeFaultHarness = (
  script: Script,
  options: {
    readonly config?: (c: LoopguardConfig) => LoopguardConfig
    readonly tools?: ReadonlyArray<ToolDefinition>
    readonly decorate: (llm: LlmShape) => LlmShape
  }
): Promise<Harness> => makeHarness(script, options)

/** `makeFaultHarness` as a scoped resource (see harness.ts `harness`). */
export const faultHarness = (script: Script, options: Parameters<typeof makeFaultHarness>[1]): Effect.Effect<Harness, never, Scope.Scope> =>
  harness(script, options)

/** What the AI SDK reports for a connection reset after the response started (see the probe in the tests). */
export const MID_STREAM_RESET: NormalizedError = {
  message: "Failed to process successful response",
  name: "AI_APICallError",
  status: 200,
  isRetryable: true,
  causes: ["ECONNRESET: The socket connection was closed unexpectedly", "ECONNRESET"]
}

/**
 * The first request's stream fails right after its first tool call (before the finish); later
 * requests pass untouched, so a wrong replay would run the tool again and be seen.
 */
export const cutAfterToolCall = (llm: LlmShape): LlmShape => {
  let requests = 0
  return {
    ...llm,
    stream: (request) =>
      Stream.suspend(() => {
        if (++requests > 1) return llm.stream(request)
        let sawCall = false
        return llm.stream(request).pipe(
          Stream.takeUntil((part) => (sawCall = part.type === "tool-call")),
          Stream.concat(Stream.suspend(() => (sawCall ? Stream.fail(new LlmError({ error: MID_STREAM_RESET })) : Stream.empty)))
        )
      })
  }
}
