/**
 * The rollback triggers (docs/rollback.md), as one union the policy can decide on, and the three points
 * where the RunLoop looks for them in a step:
 *
 *   after the reply, if it made no structured call:   detectReplyTrigger   (format leak, refusal)
 *   before executing its calls:                       detectDuplicateCall  (duplicate query)
 *   after executing them:                             detectUselessResult  (useless tool result)
 *
 * Each detector is pure; the only state is the duplicate-query record, passed in and out.
 */
import type { ToolCallMarker } from "../classify/markup.js"
import { textOf, toolPartsOf } from "../model/message.js"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { detectDuplicateQuery, DEFAULT_DUPLICATE_QUERY_OPTIONS } from "./duplicate-query.js"
import type { DuplicateQueryOptions, DuplicateQueryState } from "./duplicate-query.js"
import { detectFormatLeak, FORMAT_LEAK_MARKERS } from "./format-leak.js"
import { DEFAULT_REFUSAL_OPTIONS, detectRefusal } from "./refusal.js"
import type { RefusalOptions } from "./refusal.js"
import { DEFAULT_USELESS_RESULT_RULES, matchUselessResult } from "./useless-result.js"
import type { ToolResultView, UselessResultRule } from "./useless-result.js"

export type RollbackTrigger =
  | { readonly kind: "format-leak"; readonly marker: string; readonly family: string }
  | { readonly kind: "refusal"; readonly phrase: string; readonly language: string }
  | {
      readonly kind: "duplicate-query"
      readonly agent: string
      readonly tool: string
      readonly fingerprint: string
      readonly count: number
      readonly callId?: string
    }
  | { readonly kind: "useless-result"; readonly rule: string; readonly tool: string; readonly callId?: string }

export type RollbackTriggerKind = RollbackTrigger["kind"]

export interface RollbackTriggerOptions {
  readonly formatLeakMarkers: ReadonlyArray<ToolCallMarker>
  readonly refusal: RefusalOptions
  readonly duplicateQuery: DuplicateQueryOptions
  readonly uselessResults: ReadonlyArray<UselessResultRule>
}

export const DEFAULT_ROLLBACK_TRIGGER_OPTIONS: RollbackTriggerOptions = {
  formatLeakMarkers: FORMAT_LEAK_MARKERS,
  refusal: DEFAULT_REFUSAL_OPTIONS,
  duplicateQuery: DEFAULT_DUPLICATE_QUERY_OPTIONS,
  uselessResults: DEFAULT_USELESS_RESULT_RULES
}

/** What the reply detectors read: the model's own text and how many structured calls it made. */
export interface ReplyView {
  readonly text: string
  readonly toolCalls: number
}

/** Synthetic text (written by loopguard) is not the model's and is left out. */
export const replyView = (reply: AssistantMessage): ReplyView => ({ text: textOf(reply), toolCalls: toolPartsOf(reply).length })

const opts = (options: Partial<RollbackTriggerOptions>): RollbackTriggerOptions => ({ ...DEFAULT_ROLLBACK_TRIGGER_OPTIONS, ...options })

/** Format leak first (the model meant to act), then refusal; only for replies without calls. */
export const detectReplyTrigger = (
  reply: AssistantMessage | ReplyView,
  options: Partial<RollbackTriggerOptions> = {}
): RollbackTrigger | null => {
  const o = opts(options)
  const view = "role" in reply ? replyView(reply) : reply
  if (view.toolCalls > 0) return null
  const leak = detectFormatLeak(view.text, view.toolCalls, o.formatLeakMarkers)
  if (leak !== null) return { kind: "format-leak", marker: leak.marker, family: leak.family }
  const refusal = detectRefusal(view.text, o.refusal)
  return refusal === null ? null : { kind: "refusal", phrase: refusal.phrase, language: refusal.language }
}

export interface CallView {
  readonly id?: string
  readonly name: string
  readonly arguments: unknown
}

/** The first of the step's calls that repeats an already executed query, checked before execution. */
export const detectDuplicateCall = (
  state: DuplicateQueryState,
  agent: string,
  calls: ReadonlyArray<CallView>,
  options: Partial<RollbackTriggerOptions> = {}
): RollbackTrigger | null => {
  const o = opts(options)
  for (const call of calls) {
    const dup = detectDuplicateQuery(state, { agent, tool: call.name, arguments: call.arguments }, o.duplicateQuery)
    if (dup !== null) return { kind: "duplicate-query", ...dup, ...(call.id !== undefined ? { callId: call.id } : {}) }
  }
  return null
}

/** A finished tool part as the useless-result rules read it; null while it is still running. */
export const toolResultView = (part: ToolPart): ToolResultView | null => {
  if (part.state === "completed") return { tool: part.name, output: part.output ?? "" }
  if (part.state === "error") return { tool: part.name, output: part.error ?? part.output ?? "" }
  return null
}

/** The first useless result among the step's executed calls. */
export const detectUselessResult = (
  results: ReadonlyArray<ToolPart | (ToolResultView & { readonly callId?: string })>,
  options: Partial<RollbackTriggerOptions> = {}
): RollbackTrigger | null => {
  const o = opts(options)
  for (const r of results) {
    const view = "type" in r ? toolResultView(r) : r
    if (view === null) continue
    const hit = matchUselessResult(view, o.uselessResults)
    const callId = r.callId
    if (hit !== null) return { kind: "useless-result", rule: hit.rule, tool: hit.tool, ...(callId !== undefined ? { callId } : {}) }
  }
  return null
}
