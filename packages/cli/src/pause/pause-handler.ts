/**
 * What happens after a try-best pause, for any command that runs turns (`run`, `chat`): show the
 * incident and the choices, take the policy's choice (or ask), and turn it into the resume turn's
 * text, or into nothing when the session stops here. Counts resumes against the limit.
 */
import type { LoopguardConfig, RunResult } from "@loopguard/effect"
import { jsonLine, terminalSafe } from "../render/terminal-safe.js"
import { Effect } from "effect"
import { handoffTargetOf, pauseChoices, refusalOf, type OnPausePolicy, type PauseChoice, type PauseChoices } from "./choices.js"
import { askChoice, askOnTerminal, formatPause, type AskLine } from "./pause-prompt.js"
import type { CommandLookup } from "./path-lookup.js"
import { pausedIncidentOf, type PausedIncident } from "./paused-incident.js"
import { continueTurn, handoffTurn } from "./resume-turn.js"

export interface PausePolicyOptions {
  /** Resumes (continue or hand-off) allowed in one `run` (in `chat`: one user turn); the next pause stops. */
  readonly maxResumes: number
  /** Wrong answers to `ask` before it gives up and stops. */
  readonly askAttempts: number
}

export const DEFAULT_PAUSE_POLICY_OPTIONS: PausePolicyOptions = { maxResumes: 2, askAttempts: 3 }

export interface PauseDecision {
  readonly incident: PausedIncident
  readonly offered: ReadonlyArray<PauseChoice>
  readonly choice: PauseChoice
  /** False when the choice was refused or the resume limit stopped the run. */
  readonly resumed: boolean
  readonly note?: string
}

export interface PauseHandlerOptions {
  readonly config: LoopguardConfig
  readonly modelId: string
  readonly hasCommand: CommandLookup
  readonly env: Readonly<Record<string, string | undefined>>
  readonly policy: OnPausePolicy
  readonly limits: PausePolicyOptions
  /** Pause and decision as JSON lines on `write`, instead of the menu on `say`. */
  readonly json: boolean
  readonly write: (line: string) => void
  /** The menu and the decision, for people. */
  readonly say: (line: string) => void
  /** Notes and refusals. */
  readonly warn: (line: string) => void
  readonly cwd?: string
  /** Whether `ask` may prompt. Default: stdin and stdout are terminals. */
  readonly isTTY?: boolean
  readonly ask?: AskLine
}

export interface PauseHandler {
  /** The resume turn's text when `last` paused and the choice resumes; null: stop here. */
  readonly resume: (last: RunResult, results: ReadonlyArray<RunResult>, goal: string) => Effect.Effect<string | null>
  readonly pauses: ReadonlyArray<PauseDecision>
  /** Set when a chosen hand-off was refused (a usage error for `run`). */
  readonly refusedError: () => string | null
}

export const refusedMessage = (policy: OnPausePolicy, reason: string) => `on-pause ${policy} refused: ${reason}`

export const makePauseHandler = (options: PauseHandlerOptions): PauseHandler => {
  const { json, write, say, warn, limits, policy } = options
  const pauses: Array<PauseDecision> = []
  let refused: string | null = null

  const record = (incident: PausedIncident, offered: ReadonlyArray<PauseChoice>, choice: PauseChoice, resumed: boolean, note?: string) => {
    pauses.push({ incident, offered, choice, resumed, ...(note !== undefined ? { note } : {}) })
    if (json) write(jsonLine({ type: "pause.decision", choice, resumed, ...(note !== undefined ? { note } : {}) }))
    else say(`  → ${choice}${note !== undefined ? ` (${note})` : ""}`)
  }

  const decide = (choices: PauseChoices): Effect.Effect<PauseChoice> => {
    if (policy !== "ask") return Effect.succeed(policy)
    const tty = options.isTTY ?? (process.stdin.isTTY === true && process.stdout.isTTY === true)
    if (!tty) {
      warn("on-pause ask needs a terminal (stdin is not a TTY): stopping at the pause")
      return Effect.succeed("stop")
    }
    return Effect.promise(() => askChoice(options.ask ?? askOnTerminal, choices, limits.askAttempts, warn))
  }

  const resumeText = (choice: PauseChoice, incident: PausedIncident, results: ReadonlyArray<RunResult>, goal: string): string => {
    const target = handoffTargetOf(choice)
    return target === null
      ? continueTurn(incident)
      : handoffTurn({
          target,
          goal,
          incident,
          results,
          completionCheck: options.config.completionCheck.command,
          env: options.env,
          ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
        })
  }

  const resume = (last: RunResult, results: ReadonlyArray<RunResult>, goal: string): Effect.Effect<string | null> =>
    Effect.gen(function* () {
      const incident = pausedIncidentOf(last)
      if (incident === null) return null
      const choices = pauseChoices(options.modelId, options.hasCommand)
      if (json) write(jsonLine({ type: "pause", incident, offered: choices.offered, unavailable: choices.unavailable }))
      // The incident quotes the model's own command: shown terminal-safe.
      else for (const line of formatPause(incident, choices)) say(terminalSafe(line))

      const choice = yield* decide(choices)
      const refusal = refusalOf(choice, choices)
      if (refusal !== null) {
        refused = refusedMessage(choice, refusal)
        record(incident, choices.offered, choice, false, "refused")
        return null
      }
      if (choice === "stop") {
        record(incident, choices.offered, choice, false)
        return null
      }
      const resumed = pauses.filter((p) => p.resumed).length
      if (resumed >= limits.maxResumes) {
        warn(`resume limit reached (${limits.maxResumes} per run): stopping at this pause`)
        record(incident, choices.offered, choice, false, `resume limit ${limits.maxResumes} reached`)
        return null
      }
      record(incident, choices.offered, choice, true, `resume ${resumed + 1} of ${limits.maxResumes}`)
      return resumeText(choice, incident, results, goal)
    })

  return { resume, pauses, refusedError: () => refused }
}
