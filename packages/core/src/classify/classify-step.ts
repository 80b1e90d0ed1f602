/**
 * Step classification (docs/run-loop.md; the finish reason is checked against the parts): what the last assistant reply means for the loop.
 * Pure; every side effect (reminders, exclusion, exit) is the recovery policy's and RunLoop's job.
 */
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { reasoningOf, textOf, toolPartsOf } from "../model/message.js"
import type { ToolCallMarker } from "./markup.js"
import { findToolCallMarkup, TOOL_CALL_MARKERS } from "./markup.js"

export type StepClass =
  | "continue"
  | "text-tool-call"
  | "dropped-tool-call"
  | "failed"
  | "filtered"
  | "unfinished"
  | "think-only"
  | "invalid"
  | "final"

export const STEP_CLASSES: ReadonlyArray<StepClass> = [
  "continue",
  "text-tool-call",
  "dropped-tool-call",
  "failed",
  "filtered",
  "unfinished",
  "think-only",
  "invalid",
  "final"
]

export interface StepClassification {
  readonly class: StepClass
  /** Only on `final`: the reply has text but finished with `other`. */
  readonly degraded?: boolean
  /** Human-readable why, for events, incidents and the audit. */
  readonly reason: string
}

export interface ClassifyOptions {
  /** Models allowed to end a turn with reasoning only (their answer lives in the reasoning channel). */
  readonly reasoningOnlyFinal: ReadonlyArray<RegExp>
  readonly markers: ReadonlyArray<ToolCallMarker>
}

export const DEFAULT_CLASSIFY_OPTIONS: ClassifyOptions = {
  reasoningOnlyFinal: [/(^|\/)gpt-\d/i],
  markers: TOOL_CALL_MARKERS
}

export interface ClassifyStepInput {
  readonly reply: AssistantMessage
  /** Id of the newest real user message; a reply to an older one is not this turn's answer. */
  readonly currentUserId: string
  /** Defaults to `reply.model`. */
  readonly modelId?: string
}

/** Client tools are ours to execute; provider-executed ones never wait on us. */
const isClientTool = (p: ToolPart): boolean => p.providerExecuted !== true

/**
 * A client tool call that still owes the model a result. Parts in `error` state do not count:
 * after a timeout or abort they would otherwise hold the loop forever.
 */
export const hasPendingClientTool = (reply: AssistantMessage): boolean =>
  toolPartsOf(reply).some((p) => isClientTool(p) && (p.state === "pending" || p.state === "running"))

const hasCompletedClientTool = (reply: AssistantMessage): boolean =>
  toolPartsOf(reply).some((p) => isClientTool(p) && p.state === "completed")

const result = (cls: StepClass, reason: string, degraded?: boolean): StepClassification =>
  degraded === undefined ? { class: cls, reason } : { class: cls, reason, degraded }

/** The class of a finished step's reply (final, tool call, think-only, text tool call, length, invalid…) and why. */
export const classifyStep = (
  input: ClassifyStepInput,
  options: Partial<ClassifyOptions> = {}
): StepClassification => {
  const opts: ClassifyOptions = { ...DEFAULT_CLASSIFY_OPTIONS, ...options }
  const { reply, currentUserId } = input
  const finish = reply.finish

  // The core guarantee: a tool result still owed to the model always wins.
  if (hasPendingClientTool(reply)) return result("continue", "a client tool call is still pending")
  if (reply.parentId !== currentUserId) return result("continue", "the reply predates the current user message")

  // An error beats "no finish yet": an errored reply never gets a finish and must not be re-sent forever.
  if (reply.error !== undefined) return result("failed", `the reply carries an error: ${reply.error.message}`)
  if (finish === "error") return result("failed", "finish = error")
  if (finish === undefined) return result("continue", "no finish yet")

  const text = textOf(reply).trim()
  const tools = toolPartsOf(reply)

  if (finish === "tool-calls") {
    if (tools.length > 0) return result("continue", "finish = tool-calls with tool parts")
    const marker = findToolCallMarkup(text, opts.markers)
    if (marker !== null) {
      return result("text-tool-call", `finish = tool-calls, no tool part, markup "${marker.id}" in the text`)
    }
    return result("dropped-tool-call", "finish = tool-calls but no tool call arrived and no markup (dropped by the server)")
  }

  if (finish === "content-filter") return result("filtered", "finish = content-filter")

  // Some OpenAI-compatible servers report `stop` alongside tool calls; the results still have to
  // reach the model, so ending the loop here would throw them away.
  if (hasCompletedClientTool(reply)) return result("continue", `finish = ${finish} but client tool results are waiting for the model`)

  if (finish === "length") return result("unfinished", "finish = length (output truncated)")
  if (finish === "unknown") return result("unfinished", "the stream ended without a finish reason")

  if (text.length > 0) {
    return finish === "other"
      ? result("final", "non-empty text, finish = other", true)
      : result("final", "non-empty text", false)
  }

  const reasoning = reasoningOf(reply).trim()
  if (reasoning.length > 0) {
    const modelId = input.modelId ?? reply.model ?? ""
    if (opts.reasoningOnlyFinal.some((re) => re.test(modelId))) {
      return result("final", `reasoning only, accepted as final for model ${modelId}`, finish === "other")
    }
    return result("think-only", "no text, non-empty reasoning")
  }

  return result("invalid", "empty output")
}
