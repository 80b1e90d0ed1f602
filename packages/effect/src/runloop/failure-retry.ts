/**
 * The failure-summary retry (MiroThinker's FAILURE_SUMMARY_PROMPT idea, docs/rollback.md; off by default,
 * config `failureSummary`). When a run ends in a failure that another attempt could get past
 * (a cap, a loop, a rollback cap), one tool-less request asks the model what it tried, why it
 * failed and what it would do differently; then the task starts again as a new user turn carrying
 * the original goal and that summary. The new attempt gets fresh caps and counters, as a new turn
 * does. Failures another attempt cannot fix (a user cancel, a content filter, a pause for the
 * human, the wall clock) are never retried.
 */
import { textOf, type ExitReason } from "@loopguard/core/model"
import { Effect } from "effect"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { runModeOf } from "./run-mode.js"
import type { RunServices } from "./run-context.js"
import { buildRequest } from "./request.js"
import type { RunInput, RunResult } from "./run-types.js"

/** Exit reasons a fresh attempt informed by a failure summary might get past. */
export const RETRYABLE_FAILURES: ReadonlySet<ExitReason> = new Set<ExitReason>([
  "max_steps",
  "budget_tokens",
  "budget_cost",
  "text_repeat",
  "text_loop",
  "rollback_cap",
  "output_length",
  "circuit_open",
  "dropped_tool_call",
  "think_only",
  "invalid_output",
  "text_tool_call",
  "doom_loop",
  "goal_gate_cap",
  "completion_check_failed"
])

export const FAILURE_SUMMARY_PROMPT =
  "This attempt at the task has failed and is over. Do not call any tool. In a few short paragraphs, summarise: " +
  "what you tried, why it did not work, what you learned about the task and the workspace, and what you would do " +
  "differently next time. This summary will be given to a fresh attempt at the same task."

/** The user turn of the next attempt: the goal again, with what the failed attempt learned. */
export const retryPrompt = (goal: string, reason: ExitReason, summary: string): string =>
  [
    goal,
    "",
    `A previous attempt at this task failed (${reason}). Its own summary of what happened:`,
    summary.trim() === "" ? "(the failed attempt gave no summary)" : summary.trim(),
    "",
    "Use this to take a substantially different approach; do not repeat what already failed."
  ].join("\n")

/** Whether a finished run qualifies for a failure-summary retry. */
export const shouldRetryAfterFailure = (s: RunServices, input: RunInput, result: RunResult): boolean =>
  s.config.failureSummary.enabled &&
  runModeOf(input).startsRuns &&
  input.prompt !== undefined &&
  input.signal?.aborted !== true &&
  result.exit !== null &&
  RETRYABLE_FAILURES.has(result.exit.reason)

/** One tool-less request for the failure summary; its reply is stored with the session. */
export const requestFailureSummary = (s: RunServices, input: RunInput, step: number): Effect.Effect<string, SessionStoreError> =>
  Effect.gen(function* () {
    const messages = yield* s.store.messages(input.sessionId)
    const { request } = buildRequest({
      messages,
      ...(input.system !== undefined ? { system: input.system } : {}),
      tools: [],
      toolless: true,
      ephemeral: [FAILURE_SUMMARY_PROMPT],
      applyCrops: true,
      streakCrops: s.config.loopStreakRecovery.enabled
    })
    const parentId = [...messages].reverse().find((m) => m.role === "user" && m.synthetic === undefined)?.id ?? ""
    const taken = new Set(messages.map((m) => m.id))
    let n = messages.length
    const result = yield* s.processor.process({
      sessionId: input.sessionId,
      parentId,
      step,
      request,
      messageId: () => {
        let id = `${input.sessionId}:fs${n++}`
        while (taken.has(id)) id = `${input.sessionId}:fs${n++}`
        taken.add(id)
        return id
      }
    })
    return textOf(result.message)
  })
