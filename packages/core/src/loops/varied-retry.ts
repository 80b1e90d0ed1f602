/**
 * Varied retry: one command skeleton (program, subcommand, flags; see command-skeleton.ts) run
 * again and again with other arguments, getting the same answer each time, with no file change
 * in between — password guesses (`unzip -P guess1 f.zip` … each "incorrect password"), package
 * churn (`pip install x==1.0`, `pip uninstall x`, `pip install x==1.1` … the same error), a
 * solver fed one number after another (`python solve.py 17`, `… 18`, each "Wrong answer").
 * Repeated action sees none of it (every call differs) and repeated observation only when the
 * tries come back to back. Pure: records in, finding out.
 */
import type { StepRecord } from "./step-record.js"

export interface VariedRetryOptions {
  /** Tries of one skeleton with one (masked) answer that make a loop. */
  readonly repeats: number
  /** How far back (in steps, and never past a file change) the earlier tries are looked for. */
  readonly window: number
}

export const DEFAULT_VARIED_RETRY: VariedRetryOptions = { repeats: 4, window: 15 }

export interface VariedRetry {
  readonly skeleton: string
  /** Tries in the window with the newest one's skeleton and answer, the newest included. */
  readonly count: number
  /** Distinct commands among them (at least 2: one command again is repeated action). */
  readonly variants: number
  /** The shared answer, masked, cut to 120 characters. */
  readonly observation: string
}

/**
 * A try that can be part of a varied retry: a shell step with a skeleton and an answer that turned
 * it down (it failed, or said no: `saysNo`), that changed nothing, passed no verification (a
 * passing test run is progress whatever it printed), and is not a poll of a running job. The same
 * plain answer to other arguments (`curl` of twelve links, each `200`) is a survey, not a retry.
 */
const isTry = (r: StepRecord): boolean =>
  r.role === "shell" && r.skeleton !== "" && r.argObservation !== "" && (r.failed || r.saysNo) && !r.changed && !r.verified && !r.poll

/** The varied retry the newest record completes, or null. */
export const variedRetry = (records: ReadonlyArray<StepRecord>, opts: VariedRetryOptions = DEFAULT_VARIED_RETRY): VariedRetry | null => {
  const n = records.length
  const newest = records[n - 1]
  if (newest === undefined || !isTry(newest)) return null
  let count = 0
  const actions = new Set<string>()
  for (let i = n - 1; i >= Math.max(0, n - opts.window); i--) {
    const r = records[i]!
    if (r.changed) break
    if (!isTry(r) || r.skeleton !== newest.skeleton || r.argObservation !== newest.argObservation) continue
    count++
    actions.add(r.action)
  }
  if (count < opts.repeats || actions.size < 2) return null
  return { skeleton: newest.skeleton, count, variants: actions.size, observation: newest.argObservation.slice(0, 120) }
}
