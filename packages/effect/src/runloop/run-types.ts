/**
 * What a run takes and gives back: the RunLoop's public types.
 */
import type { AgentRole } from "@loopguard/core/classify"
import type { ExitReason } from "@loopguard/core/model"
import type { RunExit } from "@loopguard/core/step"
import type { Effect } from "effect"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import type { Incident, RunReport } from "./report.js"

export interface RunInput {
  readonly sessionId: string
  /** A new user turn; omit to continue the session as it stands. */
  readonly prompt?: string
  readonly system?: string
  /**
   * Ask for a structured result: the model gets a tool with this JSON schema, and the run ends
   * (final) when it calls it; the arguments are `RunResult.structured`.
   */
  readonly structuredOutput?: StructuredOutputRequest
  /** Detect everything, enforce nothing (audit). */
  readonly shadow?: boolean
  /** Shadow replays: user lines recorded before a step (harness complaints, new turns). */
  readonly userTurnsBefore?: (step: number) => ReadonlyArray<string>
  /** Overrides `loop.maxSteps` (CLI `--max-steps`, audit: the number of recorded steps). */
  readonly maxSteps?: number
  /** External cancellation (Ctrl-C): checked every beat; a running step and its tools are interrupted. */
  readonly signal?: AbortSignal
  /** The directory the tools work in; the report's `savedAt` names it with the files changed. */
  readonly workspace?: string
  /** Overrides `loop.role` (a sub-agent is `subagent`: its reminders say "return your result to the parent"). */
  readonly role?: AgentRole
  /** Nesting depth: 0 for a top-level run, parent + 1 for a child; deeper than `subagents.maxDepth` ends `depth_limit`. */
  readonly depth?: number
  /** A child's budget slice: overrides the step cap and the token / cost budgets (null = none). */
  readonly budget?: RunBudget
}

export interface RunBudget {
  readonly maxSteps?: number
  readonly tokenBudget?: number | null
  readonly costBudgetUsd?: number | null
}

export interface StructuredOutputRequest {
  readonly schema: Readonly<Record<string, unknown>>
  /** Reminders to call the tool before the run ends with `structured_output`; default `recovery.structuredRetries` (2). */
  readonly retryCount?: number
  /** Default `structured_output`. */
  readonly toolName?: string
  readonly description?: string
}

export type { RunExit } from "@loopguard/core/step"

export interface RunResult {
  readonly report: RunReport
  readonly incidents: ReadonlyArray<Incident>
  /** Null only in shadow mode when no exit was ever called for. */
  readonly exit: RunExit | null
  /** The structured-output tool's arguments, when one was requested and the model called it. */
  readonly structured?: unknown
}

/** Starts one more run of the same loop (a sub-agent, for the `task` tool). */
export type SpawnRun = (input: RunInput) => Effect.Effect<RunResult, SessionStoreError>
