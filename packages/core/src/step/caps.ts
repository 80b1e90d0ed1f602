/** The caps' part of the judge: before a step, per tool call, and the breaker's tool cooldown. */
import {
  addSpent,
  admitToolCall,
  capDecision,
  capFor,
  capUsageOf,
  capUsageText,
  markSummaryDone,
  recordStep,
  streamedUsage,
  type CapDecision,
  type CapPolicy,
  type CapReason,
  type ModelPrice,
  type ToolCallCaps
} from "../caps/index.js"
import type { AssistantMessage, Usage } from "../model/index.js"
import type { Incident } from "../report/index.js"
import { fileIncident, judged, stopWith, type Judged } from "./actions.js"
import { counted, type RunState } from "./state.js"

export interface StepCap {
  readonly decision: CapDecision
  /** Set when this step is the summary request of summary mode. */
  readonly summaryReason: CapReason | null
}

/** The step cap is not a budget: each cap is filed under its own name. */
export const CAP_DETECTOR: Readonly<Record<CapReason, string>> = { max_steps: "step-cap", budget_tokens: "budget", budget_cost: "budget" }

/** Before a step: go on, go on tool-less (soft-cap last step, summary request), or stop at a cap. */
export const judgeCaps = (state: RunState, policy: CapPolicy): Judged & { readonly cap: StepCap } => {
  const decision = capDecision(policy, capUsageOf(state.meter))
  const cap = { decision, summaryReason: decision !== "proceed" && decision.type === "summary" ? decision.reason : null }
  if (decision === "proceed" || decision.type !== "stop") return { ...judged(state), cap }
  const used = capUsageText(decision.reason, policy, capUsageOf(state.meter))
  const incident = { step: state.step, detector: CAP_DETECTOR[decision.reason], action: "stop", detail: { reason: decision.reason, used } }
  return { ...judged(state, [fileIncident(incident), stopWith(decision.reason)]), cap }
}

/** A tool call against the per-tool caps (`toolCaps`): admitted and counted, or refused. */
export const judgeToolCall = (state: RunState, tool: string, caps: ToolCallCaps): Judged => {
  const admitted = admitToolCall(state.toolCallCounts, tool, caps)
  const next = { ...state, toolCallCounts: admitted.counts }
  if (admitted.refusal === null) return judged(next)
  const incident: Incident = { step: state.step, detector: "tool-cap", action: "refused", detail: { tool, cap: capFor(tool, caps) } }
  return judged(next, [{ _tag: "RefuseTool", refusal: admitted.refusal, incident }])
}

/** While the breaker's cooldown lasts, a step's tool calls are answered with `paused`, not run. */
export const takeToolCooldown = (state: RunState): { readonly state: RunState; readonly paused: string | undefined } => {
  if (state.toolCooldown <= 0) return { state: { ...state, toolsPausedThisStep: false }, paused: undefined }
  const left = state.toolCooldown - 1
  const paused = `not run: tool execution is paused after repeated tool failures (${left} more step${left === 1 ? "" : "s"} after this one)`
  return { state: { ...state, toolsPausedThisStep: true, toolCooldown: left }, paused }
}

/** What a finished step cost and how it ended: metered, counted, kept as the last reply. */
export interface ReplyFacts {
  readonly reply: AssistantMessage
  /** The processor's attempts at the step (retries are transport retries). */
  readonly attempts: number
  /** Incidents the processor already filed and published during the step. */
  readonly incidents: ReadonlyArray<Incident>
  /** What the step cost (`streamedUsage`: the server's usage, or the estimate when it sent no output count). */
  readonly usage: Usage | undefined
  /** What the step's failed attempts streamed before they were asked again (billed, then left out). */
  readonly replayedUsage?: ReadonlyArray<Usage>
  readonly price: ModelPrice | null
}

/** Meters a finished step, counts its transport retries, and keeps its reply and the processor's incidents. */
export const judgeReply = (state: RunState, facts: ReplyFacts, cap: StepCap): RunState => {
  const { reply } = facts
  const spent = (facts.replayedUsage ?? []).reduce((meter, usage) => addSpent(meter, usage, facts.price), state.meter)
  const metered = recordStep(spent, facts.usage, facts.price)
  const next = counted(state, "transport", facts.attempts - 1)
  return {
    ...next,
    incidents: [...next.incidents, ...facts.incidents],
    lastReply: reply,
    meter: cap.summaryReason !== null ? markSummaryDone(metered) : metered
  }
}

/**
 * A step stopped from outside (Ctrl-C, the wall clock) while its reply streamed: the provider billed
 * the prompt and what streamed, and the person saw it, so it is a step, its tokens estimated
 * (`streamedUsage`; `promptTokens`: the request's estimate).
 */
export const judgeInterruptedReply = (state: RunState, reply: AssistantMessage, price: ModelPrice | null, promptTokens?: () => number): RunState => ({
  ...state,
  meter: recordStep(state.meter, streamedUsage(reply, promptTokens), price)
})
