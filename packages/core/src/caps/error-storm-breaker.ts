/**
 * Error-storm breaker (docs/run-loop.md): tool failures compound (a polluted context makes the next call
 * worse), so a run of failures trips a breaker whose response escalates from light to heavy:
 *   1st trip: degrade   feed back "restate the goal, then try another method";
 *   2nd trip: reroute   switch to the fallback tool or model, when one is configured;
 *   last:     hand back exit `circuit_open` with an abort report for the human.
 * Without a fallback the ladder is degrade → hand back.
 *
 * Trips on `consecutiveFailures` failures in a row, or on a failure rate of at least
 * `failureRate` over the last `window` results once `minSamples` are in.
 *
 * Reset rules: a success clears the consecutive count. A trip clears the evidence (consecutive
 * count and window), so the next rung needs fresh failures. The escalation level drops back to
 * zero only after `recoverySuccesses` successes in a row: one lucky call in the middle of a
 * storm must not restart the ladder at "degrade" forever.
 * The breaker is per agent; the RunLoop starts a new one on a new user turn (the human is back).
 */

export interface BreakerOptions {
  readonly consecutiveFailures: number
  readonly window: number
  readonly failureRate: number
  readonly minSamples: number
  /** A fallback tool or model is configured, so the reroute rung exists. */
  readonly rerouteAvailable: boolean
  readonly recoverySuccesses: number
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  consecutiveFailures: 3,
  window: 10,
  failureRate: 0.6,
  minSamples: 5,
  rerouteAvailable: false,
  recoverySuccesses: 3
}

export type BreakerState = {
  readonly consecutive: number
  /** Last results, oldest first; true = failure. */
  readonly recent: ReadonlyArray<boolean>
  /** Trips so far in this storm: the rung of the ladder already used. */
  readonly level: number
  readonly successStreak: number
  /** Short descriptions of the latest failures, newest last (evidence for the report). */
  readonly lastFailures: ReadonlyArray<string>
}

export interface ToolResultSample {
  readonly ok: boolean
  readonly tool?: string
  readonly error?: string
}

export type BreakerTrigger = "consecutive" | "rate"

export type BreakerAction =
  | { readonly type: "degrade"; readonly trigger: BreakerTrigger; readonly detail: string }
  | { readonly type: "reroute"; readonly trigger: BreakerTrigger; readonly detail: string }
  | {
      readonly type: "hand-back"
      readonly trigger: BreakerTrigger
      readonly detail: string
      readonly reason: "circuit_open"
      readonly error: { readonly tag: "CircuitOpenError"; readonly message: string }
    }

export interface BreakerDecision {
  readonly state: BreakerState
  readonly action: BreakerAction | null
}

const EVIDENCE_KEPT = 3

type Rung = BreakerAction["type"]

const ladder = (rerouteAvailable: boolean): ReadonlyArray<Rung> =>
  rerouteAvailable ? ["degrade", "reroute", "hand-back"] : ["degrade", "hand-back"]

/** Error-storm breaker state before the first tool result. */
export const initBreaker = (): BreakerState => ({ consecutive: 0, recent: [], level: 0, successStreak: 0, lastFailures: [] })

const describe = (s: ToolResultSample): string => {
  const tool = s.tool ?? "tool"
  return s.error === undefined || s.error.length === 0 ? `${tool} failed` : `${tool}: ${s.error.slice(0, 200)}`
}

/** Counts one tool result; the breaker state after and the action it calls for (degrade, stop) or null. */
export const recordToolResult = (
  state: BreakerState,
  sample: ToolResultSample,
  options: Partial<BreakerOptions> = {}
): BreakerDecision => {
  const opts: BreakerOptions = { ...DEFAULT_BREAKER_OPTIONS, ...options }
  const recent = [...state.recent, !sample.ok].slice(-Math.max(1, opts.window))

  if (sample.ok) {
    const successStreak = state.successStreak + 1
    const level = successStreak >= opts.recoverySuccesses ? 0 : state.level
    return { state: { ...state, consecutive: 0, recent, successStreak, level }, action: null }
  }

  const consecutive = state.consecutive + 1
  const lastFailures = [...state.lastFailures, describe(sample)].slice(-EVIDENCE_KEPT)
  const failures = recent.filter((f) => f).length
  const trigger: BreakerTrigger | null =
    consecutive >= opts.consecutiveFailures
      ? "consecutive"
      : recent.length >= opts.minSamples && failures / recent.length >= opts.failureRate
        ? "rate"
        : null

  if (trigger === null) {
    return { state: { ...state, consecutive, recent, successStreak: 0, lastFailures }, action: null }
  }

  const detail =
    trigger === "consecutive"
      ? `${consecutive} consecutive tool failures (${lastFailures.join("; ")})`
      : `${failures} of the last ${recent.length} tool calls failed (${lastFailures.join("; ")})`
  const rungs = ladder(opts.rerouteAvailable)
  const rung = rungs[Math.min(state.level, rungs.length - 1)] ?? "hand-back"
  const tripped: BreakerState = { consecutive: 0, recent: [], level: state.level + 1, successStreak: 0, lastFailures }
  const action: BreakerAction =
    rung === "hand-back"
      ? {
          type: "hand-back",
          trigger,
          detail,
          reason: "circuit_open",
          error: { tag: "CircuitOpenError", message: `Error storm: ${detail}` }
        }
      : { type: rung, trigger, detail }
  return { state: tripped, action }
}
