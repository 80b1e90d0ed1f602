/**
 * The report's `blockedAt` line, the same for every host (the RunLoop, the AI SDK agent helpers):
 * which step stopped the run and why, and the last tool failure before it.
 */
import type { ExitReason, Message } from "../model/index.js"
import { DEFAULT_TRY_BEST_OPTIONS, type TryBestOptions } from "../try-best/options.js"
import { EXIT_OUTCOMES } from "./exit-outcomes.js"
import { formatToolFailure, lastToolFailure } from "./work-summary.js"

export interface ExitPoint {
  readonly reason: ExitReason
  readonly step: number
  readonly error?: { readonly tag: string; readonly message: string }
}

/** An incident as far as `blockedAt` reads it. */
export interface PauseIncident {
  readonly action: string
  readonly detail?: Readonly<Record<string, unknown>>
}

/** The evidence a pause named (the newest pause incident's sentence), when the run ended paused. */
const pauseEvidence = (reason: ExitReason, incidents: ReadonlyArray<PauseIncident>): string | undefined => {
  if (reason !== "try_best_paused") return undefined
  const said = [...incidents].reverse().find((i) => i.action === "pause")?.detail?.["detail"]
  return typeof said === "string" && said !== "" ? said : undefined
}

/**
 * "step 4: <what stopped the run, with the evidence a pause named>; last failure: step 3, tool bash
 * (`npm test`): exit 1: …"; null when completed.
 */
export const blockedAtOf = (
  exit: ExitPoint | null,
  reason: ExitReason,
  messages: ReadonlyArray<Message>,
  kinds: TryBestOptions = DEFAULT_TRY_BEST_OPTIONS,
  incidents: ReadonlyArray<PauseIncident> = []
): string | null => {
  if (EXIT_OUTCOMES[reason].status === "completed") return null
  const what = (exit?.error?.message ?? pauseEvidence(reason, incidents) ?? EXIT_OUTCOMES[reason].summary).replace(/\.$/, "")
  const where = exit !== null ? `step ${exit.step}: ` : ""
  const failure = lastToolFailure(messages, kinds)
  return `${where}${what}${failure !== null ? `; last failure: ${formatToolFailure(failure)}` : ""}`
}
