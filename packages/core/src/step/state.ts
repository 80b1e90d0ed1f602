/**
 * What a run carries from step to step, as one immutable value. The judge (the other modules here)
 * computes the next value from the last one and a step's facts; the host applies it.
 */
import { initUsageMeter, type ToolCallCounts, type UsageMeter } from "../caps/index.js"
import { initRecovery, onNewUserTurn, type ExitError, type RecoveryState } from "../classify/index.js"
import type { OutputShrink } from "../context/index.js"
import type { AssistantMessage, ExitReason } from "../model/index.js"
import type { Incident, SubagentSummary } from "../report/index.js"

export interface RunExit {
  readonly reason: ExitReason
  /** The step at which the loop ended (or, in shadow mode, would first have ended). */
  readonly step: number
  readonly error?: ExitError
}

/** A sub-agent's pause, handed up to its parent (the parent files it as its own). */
export interface ChildPause {
  readonly detector: string
  readonly detail: Readonly<Record<string, unknown>>
}

export interface RunState {
  /** The step being run, counted over the whole session (earlier runs included). */
  readonly step: number
  /** The session's step count when this run began. */
  readonly firstStep: number
  /** The real (non-synthetic) user message the replies answer. */
  readonly currentUserId: string
  readonly recovery: RecoveryState
  /** The `session.status` retry number: runs across steps and phases, back to 0 when the run goes idle. */
  readonly statusAttempt: number
  readonly meter: UsageMeter
  readonly lastReply: AssistantMessage | null
  /** The first way out; in shadow mode the run goes on past it. */
  readonly exit: RunExit | null
  readonly structured: { readonly value: unknown } | null
  /** The breaker rerouted the run to the fallback model. */
  readonly rerouted: boolean
  /** Steps left in which tool calls are not run (the breaker's cooldown). */
  readonly toolCooldown: number
  /** This step's tool calls were held back by the cooldown (the breaker does not count them). */
  readonly toolsPausedThisStep: boolean
  /** Context compactions attempted in this run (the cap counts failed ones too). */
  readonly compactions: number
  /** A compaction happened since the stall signals last looked (they count compactions). */
  readonly compactedSinceLastStep: boolean
  /** The compaction cap was reached and said so once. */
  readonly compactionCapped: boolean
  /** Old tool outputs are shortened in every later request (after an overflow compaction could not fix). */
  readonly outputShrink: OutputShrink | null
  /** A sub-agent paused in this step: the pause is the person's, so the parent pauses too. */
  readonly childPause: ChildPause | null
  /** Calls admitted per tool (the per-tool caps). */
  readonly toolCallCounts: ToolCallCounts
  /** Failed completion checks in this run (the finish gates' first cap). */
  readonly completionFailures: number
  /** Goal-gate evaluator calls in this run (the finish gates' second cap). */
  readonly goalGateChecks: number
  /** Recoveries and retries by name, for the report. */
  readonly retries: Readonly<Record<string, number>>
  /** Child runs started by the `task` tool; their usage is already in `meter`. */
  readonly subagents: ReadonlyArray<SubagentSummary>
  /** The incidents filed so far, in order (each also published once as an event). */
  readonly incidents: ReadonlyArray<Incident>
}

/** The state a run starts from: `step` steps already in the session, replies answering `currentUserId`. */
export const initRunState = (start: { readonly step: number; readonly currentUserId: string; readonly priced: boolean }): RunState => ({
  step: start.step,
  firstStep: start.step,
  currentUserId: start.currentUserId,
  recovery: initRecovery(),
  statusAttempt: 0,
  // An unpriced model has an unknown cost from the start, not $0 until its first step.
  meter: start.priced ? initUsageMeter() : { ...initUsageMeter(), costUsd: null },
  lastReply: null,
  exit: null,
  structured: null,
  rerouted: false,
  toolCooldown: 0,
  toolsPausedThisStep: false,
  compactions: 0,
  compactedSinceLastStep: false,
  compactionCapped: false,
  outputShrink: null,
  childPause: null,
  toolCallCounts: {},
  completionFailures: 0,
  goalGateChecks: 0,
  retries: {},
  subagents: [],
  incidents: []
})

/** `n` more of the recovery or retry `name` (nothing for n ≤ 0). */
export const counted = (state: RunState, name: string, n = 1): RunState =>
  n > 0 ? { ...state, retries: { ...state.retries, [name]: (state.retries[name] ?? 0) + n } } : state

/** A real user message became the turn the replies answer: the recovery counters start again. */
export const onUserTurn = (state: RunState, userId: string): RunState => ({ ...state, currentUserId: userId, recovery: onNewUserTurn(state.recovery) })

/** The way out at the current step; only the first one counts. */
export const exited = (state: RunState, reason: ExitReason, error?: ExitError): RunState =>
  state.exit !== null ? state : { ...state, exit: error !== undefined ? { reason, step: state.step, error } : { reason, step: state.step } }

/** A step left out of every later request (rolled back, or refused as too long) costs no turn. */
export const uncountStep = (state: RunState): RunState => ({ ...state, meter: { ...state.meter, stepsUsed: state.meter.stepsUsed - 1 } })

/** The run moves on to its next step. */
export const nextStep = (state: RunState): RunState => ({ ...state, step: state.step + 1 })
