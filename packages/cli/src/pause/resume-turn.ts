/**
 * The user turn that resumes a paused session: the change-of-strategy instruction for
 * `continue`, or the hand-off brief for `handoff:X`. The brief is assembled from what the run
 * already knows (the original prompt, the reports, the incident, the configured completion
 * check) and scrubbed of secrets, because its whole point is to be forwarded to another program.
 */
import { buildHandoffMessage, continueInstruction, redactSecrets, type HandoffTarget } from "@loopguard/core/try-best"
import type { RunResult } from "@loopguard/effect"
import { incidentCommand, type PausedIncident } from "./paused-incident.js"

export interface WorkspaceSummaryOptions {
  /** Completed tool calls listed at most (newest kept). */
  readonly maxCompleted: number
}

export const DEFAULT_WORKSPACE_SUMMARY_OPTIONS: WorkspaceSummaryOptions = { maxCompleted: 12 }

export const continueTurn = (incident: PausedIncident): string => continueInstruction(incident)

/**
 * What the workspace looks like, as far as the runs know: where it is, how far the session got,
 * and the tool calls that completed (the report's `completed`, over every run of the session).
 */
export const workspaceSummary = (
  results: ReadonlyArray<RunResult>,
  cwd?: string,
  options: WorkspaceSummaryOptions = DEFAULT_WORKSPACE_SUMMARY_OPTIONS
): string => {
  const steps = results.reduce((n, r) => n + r.report.stepsUsed, 0)
  const completed = results.flatMap((r) => r.report.completed)
  const shown = completed.slice(-options.maxCompleted)
  const lines = [
    ...(cwd !== undefined ? [`Working directory: ${cwd}`] : []),
    `The session used ${steps} step${steps === 1 ? "" : "s"} over ${results.length} run${results.length === 1 ? "" : "s"} before this pause.`
  ]
  if (shown.length === 0) lines.push("No tool call has completed successfully yet; inspect the working tree before relying on it.")
  else {
    const older = completed.length - shown.length
    lines.push(`Tool calls that completed successfully (newest last${older > 0 ? `; ${older} older ones left out` : ""}):`)
    for (const c of shown) lines.push(`- ${c}`)
  }
  return lines.join("\n")
}

export const failedApproach = (incident: PausedIncident): string => {
  const command = incidentCommand(incident)
  const count = incident.evidence["count"]
  const lines = [incident.detail]
  if (command !== null) lines.push(`The command involved: \`${command}\`${typeof count === "number" ? ` (${count} times)` : ""}.`)
  const path = incident.evidence["path"]
  if (typeof path === "string" && path !== "") lines.push(`The file edited again and again: ${path}.`)
  return lines.join("\n")
}

/** The configured completion check, else the command that kept failing, else a generic rule. */
export const validationOf = (incident: PausedIncident, completionCheck: string | null): ReadonlyArray<string> => {
  const command = incidentCommand(incident)
  const out: Array<string> = []
  if (completionCheck !== null && completionCheck.trim() !== "") out.push(`Run the completion check \`${completionCheck.trim()}\`; it must pass.`)
  if (command !== null) out.push(`Re-run the failing command \`${command}\`; it must succeed.`)
  if (out.length === 0) out.push("Re-run the failing command (the project's tests or build) and make sure it succeeds.")
  return out
}

export interface HandoffTurnInput {
  readonly target: HandoffTarget
  /** The user's original prompt, complete. */
  readonly goal: string
  readonly incident: PausedIncident
  /** Every run of the session so far, oldest first. */
  readonly results: ReadonlyArray<RunResult>
  readonly completionCheck: string | null
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
}

export const handoffTurn = (input: HandoffTurnInput): string =>
  // buildHandoffMessage scrubs each field; the whole text is scrubbed once more so that nothing
  // added around the fields (incident detail, harness wording) can carry a secret either.
  redactSecrets(
    buildHandoffMessage({
      target: input.target,
      goal: input.goal,
      workspaceState: workspaceSummary(input.results, input.cwd),
      failedApproach: failedApproach(input.incident),
      incident: input.incident,
      validation: validationOf(input.incident, input.completionCheck),
      env: input.env
    }),
    input.env
  )
