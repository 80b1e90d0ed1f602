/** What the Try-Best monitor reports, and the one-line text each report carries. */
import { clip } from "./normalize.js"

export type TryBestKind = "edit_repeat" | "bash_retry" | "action_streak"

/** The two kinds of action an `action_streak` counts (see monitor.ts for why two). */
export type ActionKind = "edit" | "verify"

export interface EditRepeatEvidence {
  readonly tool: string
  readonly callId: string
  readonly path: string
  /** Similar edits including this one: matches + 1. */
  readonly count: number
  /** The highest similarity among the matches. */
  readonly similarity: number
  /** Steps of the earlier edits this one matched. */
  readonly matchedSteps: ReadonlyArray<number>
}

export interface BashRetryEvidence {
  readonly tool: string
  readonly callId: string
  /** The normalized command. */
  readonly command: string
  /** Failures of this command counted so far. */
  readonly count: number
  readonly exitCode?: number
  readonly verification: boolean
}

export interface ActionStreakEvidence {
  readonly tool: string
  readonly callId: string
  readonly action: ActionKind
  /** No-progress actions of this kind in a row. */
  readonly count: number
  readonly command?: string
  readonly path?: string
}

interface IncidentBase<K extends TryBestKind, E> {
  readonly kind: K
  /** The step whose tool result raised it. */
  readonly step: number
  readonly detail: string
  readonly evidence: E
}

export type EditRepeatIncident = IncidentBase<"edit_repeat", EditRepeatEvidence>
export type BashRetryIncident = IncidentBase<"bash_retry", BashRetryEvidence>
export type ActionStreakIncident = IncidentBase<"action_streak", ActionStreakEvidence>
export type TryBestIncident = EditRepeatIncident | BashRetryIncident | ActionStreakIncident

const ordinal = (n: number): string => {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"}`
}

const formatSimilarity = (x: number): string => (Math.floor(x * 100) / 100).toFixed(2)

/** The incident for near-identical edits of one file. */
export const editRepeatIncident = (step: number, evidence: EditRepeatEvidence, threshold: number): EditRepeatIncident => ({
  kind: "edit_repeat",
  step,
  evidence,
  detail:
    `edit_repeat: the ${ordinal(evidence.count)} near-identical edit of ${clip(evidence.path, 160)} ` +
    `(similarity ${formatSimilarity(evidence.similarity)} > ${threshold}; earlier at step ${evidence.matchedSteps.join(", ")}).`
})

/** The incident for the same failing command run again. */
export const bashRetryIncident = (step: number, evidence: BashRetryEvidence): BashRetryIncident => ({
  kind: "bash_retry",
  step,
  evidence,
  detail:
    `bash_retry: \`${clip(evidence.command)}\` has failed ${evidence.count} times` +
    (evidence.exitCode !== undefined ? ` (exit ${evidence.exitCode})` : "") +
    (evidence.verification ? " with no new output" : "") +
    " and no successful edit in between."
})

/** The incident for a streak of actions of one kind without progress. */
export const actionStreakIncident = (step: number, evidence: ActionStreakEvidence): ActionStreakIncident => ({
  kind: "action_streak",
  step,
  evidence,
  detail:
    evidence.action === "edit"
      ? `action_streak: ${evidence.count} edits in a row without a verification run that made progress` +
        (evidence.path !== undefined ? ` (last: ${clip(evidence.path, 160)}).` : ".")
      : `action_streak: ${evidence.count} verification runs in a row without progress` +
        (evidence.command !== undefined ? ` (last: \`${clip(evidence.command)}\`).` : ".")
})

export const TRY_BEST_PAUSE_PREFIX = "Try-best loop detected; this turn was paused. "

/** The synthetic text part written into the paused reply. */
export const pauseNotice = (incident: { readonly detail: string }): string => TRY_BEST_PAUSE_PREFIX + incident.detail

/** The note the model gets with its next request when the Try-Best monitor first sees a loop. */
export const tryBestNote = (incident: { readonly detail: string }): string =>
  `Note: ${incident.detail} Before another attempt, find out why the earlier ones did not work and change the approach; the turn will be paused if this goes on.`
