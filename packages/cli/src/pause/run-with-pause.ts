/**
 * `loopguard run` with the pause policy (docs/try-best.md): when try-best pauses the run, show the
 * incident and the choices, then stop, continue with the same model, or hand off to another
 * harness, according to `tryBest.onPause` (or the user's answer for `ask`). A resume is a new
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
import type { OutputMode, Renderer } from "../render/index.js"
import { outputOf, runSessionWith } from "../session.js"
import { handoffTargetOf, pauseChoices, refusalOf, type OnPausePolicy, type PauseChoice } from "./choices.js"
import { makePauseHandler, refusedMessage, DEFAULT_PAUSE_POLICY_OPTIONS, type PauseDecision, type PausePolicyOptions } from "./pause-handler.js"
import type { AskLine } from "./pause-prompt.js"
import { commandOnPath, type CommandLookup } from "./path-lookup.js"

export { DEFAULT_PAUSE_POLICY_OPTIONS, type PauseDecision, type PausePolicyOptions }

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
  /** human (default), quiet (the pause menu goes to stderr), or json. */
  readonly output?: OutputMode
  readonly renderer?: Renderer
  /** The variable holding the API key: its value is never shown. */
  readonly apiKeyEnv?: string
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

export interface PauseRunOutcome {
  readonly results: ReadonlyArray<RunResult>
  readonly pauses: ReadonlyArray<PauseDecision>
  /** 0 completed, 1 the last run did not complete (stopped at a pause, aborted), 2 a refused hand-off. */
  readonly exitCode: 0 | 1 | 2
  readonly error: string | null
}


export const runWithPausePolicy = (options: PauseRunOptions): Effect.Effect<PauseRunOutcome, SessionStoreError> =>
  Effect.gen(function* () {
    // Pause notices and refusals quote the incident: the same last gate as the run's own lines.
    const redact = makeRedactor(options.secrets ?? [])
    const print = options.write ?? ((l: string) => void process.stdout.write(l + "\n"))
    const write = (l: string) => print(redact(l))
    const printWarning = options.warn ?? ((l: string) => process.stderr.write(l + "\n"))
    const warn = (l: string) => printWarning(redact(l))
    const hasCommand = options.hasCommand ?? commandOnPath()
    const env = options.env ?? process.env
    const limits = { ...DEFAULT_PAUSE_POLICY_OPTIONS, maxResumes: options.config.tryBest.maxResumes, ...options.policy }
    const policy: OnPausePolicy = options.config.tryBest.onPause
    const sessionId = options.sessionId ?? "run"
    const json = options.json === true
    const output = outputOf({ json, ...(options.output !== undefined ? { output: options.output } : {}) })
    // Quiet prints only the answer and the exit line; the pause menu is a prompt, so it goes to stderr.
    const say = output === "quiet" ? warn : write

    // A hand-off that can never be offered for this model is a usage error: say so before any
    // request is spent, not after the run has paused.
    const preset = policy === "ask" ? null : handoffTargetOf(policy)
    if (preset !== null) {
      const refusal = refusalOf(policy as PauseChoice, pauseChoices(options.modelId, hasCommand))
      if (refusal !== null) return { results: [], pauses: [], exitCode: 2, error: refusedMessage(policy, refusal) } satisfies PauseRunOutcome
    }

    const handler = makePauseHandler({
      config: options.config,
      modelId: options.modelId,
      hasCommand,
      env,
      policy,
      limits,
      json,
      write,
      say,
      warn,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.isTTY !== undefined ? { isTTY: options.isTTY } : {}),
      ...(options.ask !== undefined ? { ask: options.ask } : {})
    })
    const base = {
      sessionId,
      ...(options.system !== undefined ? { system: options.system } : {}),
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.cwd !== undefined ? { workspace: options.cwd } : {})
    }
    const next = (last: RunResult, results: ReadonlyArray<RunResult>): Effect.Effect<RunInput | null> =>
      handler.resume(last, results, options.prompt ?? "").pipe(Effect.map((text) => (text === null ? null : { ...base, prompt: text })))

    const results = yield* runSessionWith(
      {
        config: options.config,
        llm: options.llm,
        tools: options.tools,
        json,
        output,
        modelId: options.modelId,
        ...(options.renderer !== undefined ? { renderer: options.renderer } : {}),
        ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
        ...(options.write !== undefined ? { write: options.write } : {}),
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
    const refused = handler.refusedError()
    const exitCode: PauseRunOutcome["exitCode"] = refused !== null ? 2 : last?.report.status === "completed" ? 0 : 1
    return { results, pauses: handler.pauses, exitCode, error: refused } satisfies PauseRunOutcome
  })
