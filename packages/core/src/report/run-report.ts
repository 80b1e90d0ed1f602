/**
 * The one structured report every termination path ends in: giving up is also a
 * delivery, so the report says what was done, where it got stuck and what to do next, instead of
 * a bare "task failed".
 */
import type { ExitReason } from "../model/exit.js"
import type { RunStatus } from "./exit-outcomes.js"
import { EXIT_OUTCOMES } from "./exit-outcomes.js"
import type { IncidentKind } from "./incident-kind.js"

export interface ReportError {
  readonly tag: string
  readonly message: string
  /** What went wrong in words for people, and what to do (the `message` is the provider's or the tool's own). */
  readonly uiMessage?: string
}

/** Same shape as an audit incident (docs/trace-format.md). */
export interface Incident {
  readonly step: number
  readonly detector: string
  readonly action: string
  /** loop | stall | recovery | fault; the RunLoop fills it in from the detector when left out. */
  readonly kind?: IncidentKind
  readonly detail?: Readonly<Record<string, unknown>>
}

export interface TokenTotals {
  readonly input: number
  readonly output: number
  readonly total: number
  /** Some output was estimated from what a cut or failed step streamed (the server sent no usage for it). */
  readonly estimated?: boolean
}

export interface RunReport {
  readonly status: RunStatus
  readonly reason: ExitReason
  readonly stepsUsed: number
  readonly tokens: TokenTotals
  /** Null when the model's price is unknown. */
  readonly costUsd: number | null
  /** What was achieved, in the caller's words (e.g. "located the bug in auth.py:42"). */
  readonly completed: ReadonlyArray<string>
  /** Where it got stuck; null when completed. */
  readonly blockedAt: string | null
  readonly suggestedNextStep: string
  /** Where the work is kept (session id, workspace path, branch); null if nowhere. */
  readonly savedAt: string | null
  readonly error?: ReportError
  /** The last reply's visible text (the answer, or the summary of summary mode). */
  readonly finalText?: string
  /** Recoveries and retries used, by name (the recovery counters, transport retries, rollbacks…). */
  readonly retries: Readonly<Record<string, number>>
  readonly incidents: ReadonlyArray<Incident>
  /** Child runs (sub-agents) this run started; their tokens and cost are in this report's totals. */
  readonly subagents?: ReadonlyArray<SubagentSummary>
}

/** One child run (sub-agent) in its parent's report. */
export interface SubagentSummary {
  readonly sessionId: string
  /** The parent's step whose `task` call started it. */
  readonly step: number
  readonly depth: number
  readonly status: RunStatus
  readonly reason: ExitReason
  readonly stepsUsed: number
  readonly tokens: TokenTotals
  readonly costUsd: number | null
}

export interface BuildReportInput {
  readonly reason: ExitReason
  readonly stepsUsed: number
  readonly tokens?: TokenTotals
  readonly costUsd?: number | null
  readonly completed?: ReadonlyArray<string>
  /** Defaults to the error message, else the exit reason's summary (null when completed). */
  readonly blockedAt?: string | null
  /** Overrides the exit reason's standard suggestion. */
  readonly suggestedNextStep?: string
  readonly savedAt?: string | null
  readonly error?: ReportError
  readonly finalText?: string
  readonly retries?: Readonly<Record<string, number>>
  readonly incidents?: ReadonlyArray<Incident>
  readonly subagents?: ReadonlyArray<SubagentSummary>
}

const ZERO_TOKENS: TokenTotals = { input: 0, output: 0, total: 0 }

/** The one run report for an exit reason: status, tokens, cost, what was done, where it got stuck, what to do next. */
export const buildReport = (input: BuildReportInput): RunReport => {
  const outcome = EXIT_OUTCOMES[input.reason]
  const blockedAt =
    input.blockedAt !== undefined
      ? input.blockedAt
      : outcome.status === "completed"
        ? null
        : (input.error?.message ?? outcome.summary)
  const base: RunReport = {
    status: outcome.status,
    reason: input.reason,
    stepsUsed: input.stepsUsed,
    tokens: input.tokens ?? ZERO_TOKENS,
    costUsd: input.costUsd ?? null,
    completed: input.completed ?? [],
    blockedAt,
    suggestedNextStep: input.suggestedNextStep ?? outcome.suggestion,
    savedAt: input.savedAt ?? null,
    retries: input.retries ?? {},
    incidents: input.incidents ?? []
  }
  return {
    ...base,
    ...(input.error !== undefined ? { error: input.error } : {}),
    ...(input.finalText !== undefined ? { finalText: input.finalText } : {}),
    ...(input.subagents !== undefined && input.subagents.length > 0 ? { subagents: input.subagents } : {})
  }
}
