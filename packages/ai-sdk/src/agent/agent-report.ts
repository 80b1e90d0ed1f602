/**
 * The agent run's report, built by core's report builders as the RunLoop's is: the same status,
 * reason, tokens, incidents and suggested next step. A run loopguard did not stop ends the way
 * its last step says (an answer, a cut reply, a length or filter stop, the caller's step cap).
 */
import { resolveTryBestOptions } from "@loopguard/core/try-best"
import { tryBestOptionsOf } from "@loopguard/core/judge"
import { textOf, type AssistantMessage } from "@loopguard/core/model"
import { blockedAtOf, buildReport, summarizeWork, type ExitPoint, type RunReport } from "@loopguard/core/report"
import type { GuardedRun } from "./guarded-run.js"
import type { ResolvedAgentOptions } from "./options.js"
import type { AnyStep } from "./step-reply.js"

export interface LoopguardAgentReport extends RunReport {
  readonly sessionId: string
  readonly provider: string
  readonly modelId: string
  /** Some of `tokens` were estimated (a cut or failed step, or a server that sends no usage): the prompt from the request, the output from what streamed. */
  readonly tokensEstimated: boolean
}

/** How a run ended that loopguard did not stop, read from its last step; null = an answer. */
export const endOfRun = (last: AnyStep | undefined, step: number): ExitPoint | null => {
  if (last === undefined) return null
  const cut = last.providerMetadata?.["loopguard"] as { tripped?: string; timeoutMs?: number } | undefined
  if (cut?.tripped === "text-repeat") return { reason: "text_repeat", step, error: { tag: "TextRepeatError", message: "the repetition guard cut the reply" } }
  if (cut?.tripped === "chunk-timeout") return { reason: "model_error", step, error: { tag: "ChunkTimeout", message: `the stream went silent for ${cut.timeoutMs} ms` } }
  if (last.finishReason === "length") return { reason: "output_length", step }
  if (last.finishReason === "content-filter") return { reason: "content_filter", step }
  if (last.finishReason === "error") return { reason: "model_error", step }
  // Tool calls answered and no stop of loopguard's: the caller's own stop condition (a step cap) ended it.
  if (last.finishReason === "tool-calls" && last.toolCalls.length > 0) return { reason: "max_steps", step }
  return null
}

/**
 * A step that began and never ended: its model call, or the SDK reading its reply (a stream with no
 * finish), threw, and the error went to the caller; or the caller stopped reading the reply (a
 * `break` out of `textStream`), which the AI SDK does not pass on to the model's stream.
 */
const unfinished = ({ step, cancelled, ended }: UnfinishedStep): ExitPoint =>
  ended === true
    ? { reason: "cancelled", step, error: { tag: "CancelledError", message: "the caller's abort signal ended the run after this step's calls were made (while its tools ran, or before the next step)" } }
    : cancelled
      ? { reason: "cancelled", step, error: { tag: "CancelledError", message: "the step never ended: the caller's abort signal cancelled its model call" } }
      : { reason: "model_error", step, error: { tag: "StepFailed", message: "the step never ended: its model call or the reading of its reply threw (the error went to the caller), or the caller stopped reading the reply" } }

/**
 * A step that began and never ended (the run threw), and whether the caller's own abort signal
 * ended it; or (`ended`) a step that ended with calls, after which the caller's signal ended the run.
 */
export interface UnfinishedStep {
  readonly step: number
  readonly cancelled: boolean
  readonly ended?: boolean
}

export const buildAgentReport = (run: GuardedRun, options: ResolvedAgentOptions, unfinishedStep: UnfinishedStep | null = null): LoopguardAgentReport => {
  const kinds = resolveTryBestOptions(tryBestOptionsOf(options.judge))
  const lastIndex = run.fed.length - 1
  const exit = run.exit ?? (unfinishedStep !== null ? unfinished(unfinishedStep) : endOfRun(run.fed[lastIndex], lastIndex))
  const reason = exit?.reason ?? "final"
  const lastReply = [...run.messages].reverse().find((m): m is AssistantMessage => m.role === "assistant")
  const report = buildReport({
    reason,
    stepsUsed: run.meter.stepsUsed,
    tokens: run.meter.tokens,
    costUsd: run.meter.costUsd,
    completed: summarizeWork(run.messages, kinds),
    blockedAt: blockedAtOf(exit, reason, run.messages, kinds),
    savedAt: null,
    ...(exit?.error !== undefined ? { error: exit.error } : {}),
    retries: run.retries,
    incidents: run.incidents,
    finalText: lastReply === undefined ? "" : textOf(lastReply)
  })
  return { ...report, sessionId: run.ids.sessionId, provider: run.ids.provider, modelId: run.ids.modelId, tokensEstimated: run.meter.tokens.estimated === true }
}
