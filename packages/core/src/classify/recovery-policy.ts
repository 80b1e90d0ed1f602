/**
 * The prompt-level recovery policy (the REMIND/REPLAN ladder, malformed replies, the final answer): given a classified step,
 * decide whether to go on, remind and retry, accept a final answer, or end the loop.
 *
 * A small state machine whose state is only counters, so it serializes with the session and a
 * resumed run keeps its budgets. All counters are per user turn (`onNewUserTurn`).
 */
import { uiMessageOf } from "../retry/ui-message.js"
import type { ExitReason } from "../model/exit.js"
import type { ExclusionReason, ReminderKind } from "../model/message.js"
import type { FinishReason, NormalizedError } from "../model/stream.js"
import type { StepClassification } from "./classify-step.js"
import type { AgentRole, ReminderTemplateKind } from "./reminders.js"
import { reminderText } from "./reminders.js"
import { isProtocolError } from "../retry/decision.js"

export type RecoveryState = {
  readonly lengthContinuations: number
  /** Shared by think-only and invalid. */
  readonly emptyRetries: number
  readonly textToolCallRetries: number
  readonly droppedToolCallRetries: number
  readonly structuredRetries: number
  readonly textRepeats: number
}

/** How many recoveries of each kind a user turn may use before the loop ends. */
export type RecoveryLimits = {
  readonly lengthContinuations: number
  readonly emptyRetries: number
  readonly textToolCallRetries: number
  readonly droppedToolCallRetries: number
  readonly structuredRetries: number
  /** Text-repeat recoveries before the exit: all but the last are REMIND, the last is REPLAN. */
  readonly textRepeatRecoveries: number
}

export const DEFAULT_RECOVERY_LIMITS: RecoveryLimits = {
  lengthContinuations: 3,
  emptyRetries: 2,
  textToolCallRetries: 2,
  droppedToolCallRetries: 2,
  structuredRetries: 2,
  textRepeatRecoveries: 2
}

/** How the step's reply stream ended: on its own, or cut by the in-stream repetition guard. */
export type StreamEnding = "normal" | "text-repeat"

export interface RecoveryInput {
  readonly classification: StepClassification
  readonly finish?: FinishReason
  readonly pendingClientTool: boolean
  /**
   * The step made a client tool call (run or refused): a `length` finish then needs no
   * continuation, the tool results are the model's next input (as in MiMo Code: continue only when the
   * step made no client tool call).
   */
  readonly madeClientToolCall?: boolean
  /** `text-repeat` when the in-stream monitor cut the stream. */
  readonly outcome: StreamEnding
  /** A JSON schema result was requested for this turn. */
  readonly structuredOutput: boolean
  readonly role: AgentRole
  /** Missing fields take `DEFAULT_RECOVERY_LIMITS`. */
  readonly limits?: Partial<RecoveryLimits>
  /** The reply's own error, kept as the exit error when the step failed. */
  readonly error?: NormalizedError
}

export interface ExitError {
  readonly tag: string
  readonly message: string
  /** The failure in words for people, with what to do (`message` is the provider's own). */
  readonly uiMessage?: string
}

export type RecoveryAction =
  | { readonly type: "next-step" }
  | {
      readonly type: "remind"
      readonly kind: ReminderKind
      readonly text: string
      /** Leave the reply out of every later request (it stays in the store). */
      readonly exclude?: ExclusionReason
    }
  | { readonly type: "final"; readonly degraded: boolean }
  | { readonly type: "exit"; readonly reason: ExitReason; readonly error?: ExitError }

export interface RecoveryDecision {
  readonly state: RecoveryState
  readonly action: RecoveryAction
}

/** Recovery counters before the first step. */
export const initRecovery = (): RecoveryState => ({
  lengthContinuations: 0,
  emptyRetries: 0,
  textToolCallRetries: 0,
  droppedToolCallRetries: 0,
  structuredRetries: 0,
  textRepeats: 0
})

/** A real (non-synthetic) user message starts a fresh budget for every recovery. */
export const onNewUserTurn = (_state: RecoveryState): RecoveryState => initRecovery()

type Counter = Exclude<keyof RecoveryState, "textRepeats">

interface BoundedRecovery {
  readonly counter: Counter
  readonly limit: number
  readonly kind: ReminderKind
  readonly template: ReminderTemplateKind
  readonly exclude?: ExclusionReason
  readonly exit: ExitReason
  readonly error: ExitError
}

const NEXT: RecoveryAction = { type: "next-step" }

/** Remind while the counter is under its limit; at the limit, exit. */
const bounded = (state: RecoveryState, role: AgentRole, r: BoundedRecovery): RecoveryDecision => {
  if (state[r.counter] >= r.limit) {
    return { state, action: { type: "exit", reason: r.exit, error: r.error } }
  }
  const text = reminderText(r.template, role)
  const action: RecoveryAction =
    r.exclude === undefined
      ? { type: "remind", kind: r.kind, text }
      : { type: "remind", kind: r.kind, text, exclude: r.exclude }
  return { state: { ...state, [r.counter]: state[r.counter] + 1 }, action }
}

const textRepeat = (state: RecoveryState, role: AgentRole, limit: number): RecoveryDecision => {
  if (state.textRepeats >= limit) {
    return {
      state,
      action: { type: "exit", reason: "text_repeat", error: { tag: "TextRepeatError", message: "Text repetition detected" } }
    }
  }
  const attempt = state.textRepeats + 1
  const replan = attempt === limit
  return {
    state: { ...state, textRepeats: attempt },
    action: {
      type: "remind",
      kind: replan ? "text-repeat-replan" : "text-repeat-remind",
      text: reminderText(replan ? "text-repeat-replan" : "text-repeat-remind", role)
    }
  }
}

/** A reply that stopped before it was done: at the length limit, or a stream with no finish reason (`unfinished-stream`, its own kind, so the report says which). */
const lengthRecovery = (limits: RecoveryLimits, template: "length-continue" | "unfinished-stream", message: string): BoundedRecovery => ({
  counter: "lengthContinuations",
  limit: limits.lengthContinuations,
  kind: template,
  template,
  exit: "output_length",
  error: { tag: "OutputLengthError", message }
})

const structuredRecovery = (limits: RecoveryLimits): BoundedRecovery => ({
  counter: "structuredRetries",
  limit: limits.structuredRetries,
  kind: "structured-output",
  template: "structured-output",
  exit: "structured_output",
  error: { tag: "StructuredOutputError", message: "The model did not call the structured-output tool" }
})

/** The bounded recovery for a classified step (remind, replan, continue, terminate…) and the counters after. */
export const decideRecovery = (state: RecoveryState, input: RecoveryInput): RecoveryDecision => {
  const limits: RecoveryLimits = { ...DEFAULT_RECOVERY_LIMITS, ...input.limits }
  const { role, classification } = input

  // The stream was cut mid-generation: whatever the partial reply looks like, the repetition is the news.
  if (input.outcome === "text-repeat") return textRepeat(state, role, limits.textRepeatRecoveries)

  if (input.pendingClientTool) return { state, action: NEXT }

  // Truncation is handled before classification: a cut-off reply is never an answer.
  if (input.finish === "length" && input.madeClientToolCall === true) return { state, action: NEXT }
  if (input.finish === "length") {
    return bounded(state, role, lengthRecovery(limits, "length-continue", "The reply hit the output length limit too many times"))
  }

  switch (classification.class) {
    case "continue":
      return { state, action: NEXT }
    case "unfinished":
      // Shares the length budget: both are "the reply stopped before it was done".
      return bounded(
        state,
        role,
        lengthRecovery(limits, "unfinished-stream", "The stream ended without a finish reason too many times")
      )
    case "text-tool-call":
      return bounded(state, role, {
        counter: "textToolCallRetries",
        limit: limits.textToolCallRetries,
        kind: "text-tool-call",
        template: "text-tool-call",
        exclude: "text-tool-call",
        exit: "text_tool_call",
        error: { tag: "TextToolCallError", message: "The model kept writing tool calls as text" }
      })
    case "dropped-tool-call":
      return bounded(state, role, {
        counter: "droppedToolCallRetries",
        limit: limits.droppedToolCallRetries,
        kind: "dropped-tool-call",
        template: "dropped-tool-call",
        exit: "dropped_tool_call",
        error: { tag: "DroppedToolCallError", message: "finish = tool-calls but no tool call arrived" }
      })
    case "failed": {
      const existing = input.error
      // A reply cut by a cancel (a person's Ctrl-C, recorded as CancelledError) is not a model
      // failure: a replayed or resumed one ends the run the way the live cancel did.
      if (existing !== undefined && (existing.aborted === true || existing.name === "CancelledError")) {
        return { state, action: { type: "exit", reason: "cancelled", error: { tag: "CancelledError", message: existing.message } } }
      }
      const error: ExitError =
        existing === undefined
          ? { tag: "ModelError", message: classification.reason }
          : { tag: existing.name ?? "ModelError", message: existing.message, uiMessage: uiMessageOf(existing) }
      const protocol = existing !== undefined && isProtocolError(existing)
      return { state, action: { type: "exit", reason: protocol ? "protocol" : "model_error", error } }
    }
    case "filtered":
      return {
        state,
        action: {
          type: "exit",
          reason: "content_filter",
          error: { tag: "ContentFilterError", message: "The provider's content filter stopped the reply" }
        }
      }
    case "think-only":
    case "invalid": {
      if (input.structuredOutput) return bounded(state, role, structuredRecovery(limits))
      const thinkOnly = classification.class === "think-only"
      return bounded(state, role, {
        counter: "emptyRetries",
        limit: limits.emptyRetries,
        kind: thinkOnly ? "think-only" : "invalid",
        template: thinkOnly ? "think-only" : "invalid",
        exit: thinkOnly ? "think_only" : "invalid_output",
        error: thinkOnly
          ? { tag: "ThinkOnlyError", message: "The model kept replying with reasoning only" }
          : { tag: "InvalidOutputError", message: "empty output" }
      })
    }
    case "final":
      if (input.structuredOutput) return bounded(state, role, structuredRecovery(limits))
      return { state, action: { type: "final", degraded: classification.degraded === true } }
  }
}
