/**
 * `loopguard run` with the pause policy (SPEC §6): when try-best pauses the run, show the
 * incident and the choices, then stop, continue with the same model, or hand off to another
 * harness, according to `try_best.on_pause` (or the user's answer for `ask`). A resume is a new
 * user turn in the same session; nothing resumes a paused run except this explicit choice.
 */
import type {
  LLM,
  SessionStoreError,
  LoopguardConfig,
  LoopguardEvent,
  RunInput,
  RunResult,
  SessionStoreShape,
  ToolDefinition
} from "@loopguard/effect"
import { makeRedactor } from "@loopguard/core/try-best"
import { Effect, type Layer } from "effect"
import { runSessionWith } from "../session.js"
import { handoffTargetOf, pauseChoices, refusalOf, type OnPausePolicy, type PauseChoice } from "./choices.js"
import { askChoice, askOnTerminal, formatPause, type AskLine } from "./pause-prompt.js"
import { commandOnPath, type CommandLookup } from "./path-lookup.js"
import { pausedIncidentOf, type PausedIncident } from "./paused-incident.js"
import { continueTurn, handoffTurn } from "./resume-turn.js"

export interface PausePolicyOptions {
  /** Resumes (continue or hand-off) allowed in one `run`; the next pause stops. */
  readonly maxResumes: number
  /** Wrong answers to `ask` before it gives up and stops. */
  readonly askAttempts: number
}

export const DEFAULT_PAUSE_POLICY_OPTIONS: PausePolicyOptions = { maxResumes: 2, askAttempts: 3 }

export interface PauseRunOptions {
  readonly config: LoopguardConfig
  readonly llm: Layer.Layer<LLM>
  /** Decides which hand-off targets are of another family. */
  readonly modelId: string
  readonly tools: ReadonlyArray<ToolDefinition>
  /** The user turn; absent when resuming a stored session as it was left. */
  readonly prompt?: string
  readonly system?: string
  readonly sessionId?: string
  readonly maxSteps?: number
  readonly cwd?: string
  /** Secret values (the API key) redacted from everything the session writes; see SessionOptions. */
  readonly secrets?: ReadonlyArray<string>
  /** Environment variables holding secrets, kept from the completion check. */
  readonly secretEnvNames?: ReadonlyArray<string>
  readonly json?: boolean
  /** The run log (stdout). */
  readonly write?: (line: string) => void
  /** Notes and refusals (stderr). */
  readonly warn?: (line: string) => void
  readonly onEvent?: (event: LoopguardEvent) => void
  /** Where the session is kept (default: a fresh in-memory store). */
  readonly store?: SessionStoreShape
  /** Default: look on PATH. */
  readonly hasCommand?: CommandLookup
  /** Whose secret values never reach a hand-off message. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Whether `ask` may prompt. Default: stdin and stdout are terminals. */
  readonly isTTY?: boolean
  readonly ask?: AskLine
  readonly policy?: Partial<PausePolicyOptions>
  /** Ctrl-C: ends the current run with reason `cancelled` and stops resuming. */
  readonly signal?: AbortSignal
}

export interface PauseDecision {
  readonly incident: PausedIncident
  readonly offered: ReadonlyArray<PauseChoice>
  readonly choice: PauseChoice
  /** False when the choice was refused or the resume limit stopped the run. */
  readonly resumed: boolean
  readonly note?: string
}

export interface PauseRunOutcome {
  readonly results: ReadonlyArray<RunResult>
  readonly pauses: ReadonlyArray<PauseDecision>
  /** 0 completed, 1 the last run did not complete (stopped at a pause, aborted), 2 a refused hand-off. */
  readonly exitCode: 0 | 1 | 2
  readonly error: string | null
}

const refusedMessage = (policy: OnPausePolicy, reason: string) => `on-pause ${policy} refused: ${reason}`

export const runWithPausePolicy = (options: PauseRunOptions): Effect.Effect<PauseRunOutcome, SessionStoreError> =>
  Effect.gen(function* () {
    // Pause notices and refusals quote the incident: the same last gate as the run's own lines.
    const redact = makeRedactor(options.secrets ?? [])
    const print = options.write ?? ((l: string) => console.log(l))
    const write = (l: string) => print(redact(l))
    const printWarning = options.warn ?? ((l: string) => process.stderr.write(l + "\n"))
    const warn = (l: string) => printWarning(redact(l))
    const hasCommand = options.hasCommand ?? commandOnPath()
    const env = options.env ?? process.env
    const limits = { ...DEFAULT_PAUSE_POLICY_OPTIONS, maxResumes: options.config.try_best.max_resumes, ...options.policy }
    const policy: OnPausePolicy = options.config.try_best.on_pause
    const sessionId = options.sessionId ?? "run"
    const json = options.json === true

    // A hand-off that can never be offered for this model is a usage error: say so before any
    // request is spent, not after the run has paused.
    const preset = policy === "ask" ? null : handoffTargetOf(policy)
    if (preset !== null) {
      const refusal = refusalOf(policy as PauseChoice, pauseChoices(options.modelId, hasCommand))
      if (refusal !== null) return { results: [], pauses: [], exitCode: 2, error: refusedMessage(policy, refusal) } satisfies PauseRunOutcome
    }

    const pauses: Array<PauseDecision> = []
    const refused: { error: string | null } = { error: null }
    const base = {
      sessionId,
      ...(options.system !== undefined ? { system: options.system } : {}),
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.cwd !== undefined ? { workspace: options.cwd } : {})
    }
    const record = (incident: PausedIncident, offered: ReadonlyArray<PauseChoice>, choice: PauseChoice, resumed: boolean, note?: string) => {
      pauses.push({ incident, offered, choice, resumed, ...(note !== undefined ? { note } : {}) })
      if (json) write(JSON.stringify({ type: "pause.decision", choice, resumed, ...(note !== undefined ? { note } : {}) }))
      else write(`  → ${choice}${note !== undefined ? ` (${note})` : ""}`)
    }

    const decide = (incident: PausedIncident, offered: ReturnType<typeof pauseChoices>): Effect.Effect<PauseChoice> => {
      if (policy !== "ask") return Effect.succeed(policy)
      const tty = options.isTTY ?? (process.stdin.isTTY === true && process.stdout.isTTY === true)
      if (!tty) {
        warn("on-pause ask needs a terminal (stdin is not a TTY): stopping at the pause")
        return Effect.succeed("stop")
      }
      return Effect.promise(() => askChoice(options.ask ?? askOnTerminal, offered, limits.askAttempts, warn))
    }

    const next = (last: RunResult, results: ReadonlyArray<RunResult>): Effect.Effect<RunInput | null> =>
      Effect.gen(function* () {
        const incident = pausedIncidentOf(last)
        if (incident === null) return null
        const choices = pauseChoices(options.modelId, hasCommand)
        if (json) write(JSON.stringify({ type: "pause", incident, offered: choices.offered, unavailable: choices.unavailable }))
        else for (const line of formatPause(incident, choices)) write(line)

        const choice = yield* decide(incident, choices)
        const refusal = refusalOf(choice, choices)
        if (refusal !== null) {
          refused.error = refusedMessage(choice, refusal)
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
        const target = handoffTargetOf(choice)
        const text =
          target === null
            ? continueTurn(incident)
            : handoffTurn({
                target,
                goal: options.prompt ?? "",
                incident,
                results,
                completionCheck: options.config.completion_check.command,
                env,
                ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
              })
        record(incident, choices.offered, choice, true, `resume ${resumed + 1} of ${limits.maxResumes}`)
        return { ...base, prompt: text }
      })

    const results = yield* runSessionWith(
      {
        config: options.config,
        llm: options.llm,
        tools: options.tools,
        json,
        write,
        ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
        ...(options.store !== undefined ? { store: options.store } : {}),
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
        ...(options.secretEnvNames !== undefined ? { secretEnvNames: options.secretEnvNames } : {})
      },
      { ...base, ...(options.prompt !== undefined ? { prompt: options.prompt } : {}) },
      next
    )
    const last = results[results.length - 1]
    const exitCode: PauseRunOutcome["exitCode"] = refused.error !== null ? 2 : last?.report.status === "completed" ? 0 : 1
    return { results, pauses, exitCode, error: refused.error } satisfies PauseRunOutcome
  })
