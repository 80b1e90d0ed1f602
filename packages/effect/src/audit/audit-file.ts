/**
 * Auditing trace files from disk, streamed: a file is read twice line by line (a check pass that
 * keeps only the problems, the step count and the tool names; then the replay, which parses steps
 * as it asks for them into a store of fixed size), so memory does not grow with the trace. A file
 * that cannot be read comes back `failed` with the reason, like one that cannot be parsed, so a
 * batch always audits every other file.
 */
import { formatTraceProblem, type TraceFormat } from "@loopguard/core/trace"
import { distinctRedactions, plainRedactions, redactDeep } from "@loopguard/core/try-best"
import { Cause, Effect, Exit } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import { auditConfig } from "./audit-config.js"
import { shadowReplay, type AuditResult, type FailedFile } from "./audit-trace.js"
import { checkTrace, type TraceCheck, type TraceSource } from "./check-trace.js"
import { detectFileFormat, isSqliteFile } from "./detect-file.js"
import { withReplyStepsBy } from "./incidents.js"
import { StepFeed } from "./step-feed.js"
import { layerStreamedReplay } from "./stream-replay.js"
import { openTraceLines } from "./trace-lines.js"
import { auditWindow, makeWindowStore } from "./window-store.js"

const failed = (file: string, errors: ReadonlyArray<string>): FailedFile => ({ _tag: "failed", file, errors })

/** The replay pass over a file that checked clean. */
const replayFile = (source: TraceSource, check: TraceCheck, config: LoopguardConfig, progress?: AuditProgress, redact?: (text: string) => string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const lines = yield* openTraceLines(source, config.input.maxLineBytes)
      const feed = new StepFeed(lines, source.name, source.format, redact)
      yield* Effect.promise(() => feed.fill(0))
      const store = makeWindowStore(auditWindow(config))
      const replay = layerStreamedReplay(feed, {
        steps: check.steps,
        toolNames: check.toolNames,
        ...(check.model !== undefined ? { modelId: check.model } : {}),
        ...(progress !== undefined ? { onStep: (i: number) => progress(i, check.steps) } : {})
      })
      const run = yield* shadowReplay(
        { replay, store, steps: check.steps, prompt: feed.promptMessage?.text, userTurnsBefore: (step) => feed.usersBefore(step) },
        config
      )
      // Notes cover the whole file: read what the replay did not need.
      yield* Effect.promise(() => feed.fill(Number.MAX_SAFE_INTEGER))
      return { format: source.format, steps: check.steps, incidents: run.incidents.map((i) => withReplyStepsBy(i, store.stepOf)), exit: run.exit, notes: feed.problems().map(formatTraceProblem) }
    })
  )

/** Told, as a file's replay goes, the step it is at and how many the file holds. */
export type AuditProgress = (step: number, steps: number) => void

/** A file to audit: its path, the name messages give it, and its format (detected when absent). */
export interface AuditInput {
  readonly path: string
  readonly name: string
  readonly format?: TraceFormat | undefined
  /**
   * Applied to the log's text before the detectors read it (the CLI's secrets redactor): a finding
   * quotes a command or text shortened, and a secret redacted after that cut is no longer recognised.
   * The detectors see each hidden value marked apart (`distinctRedactions`); the result reads `[REDACTED]`.
   */
  readonly redact?: (text: string) => string
}

/**
 * Reads one log file (trace v1 or an agent's own log, docs/audit.md) and audits it with `config`
 * (default: `auditConfig()`, every detector on). `file` is a path, or a path with the name
 * messages should give it (a pipe spooled to a file) and, optionally, its format.
 */
export const auditFile = Effect.fn("audit.auditFile")(function* (file: string | AuditInput, config: LoopguardConfig = auditConfig(), progress?: AuditProgress) {
  const input: AuditInput = typeof file === "string" ? { path: file, name: file } : file
  // A database given by path is read as one (one run per session) before it gets here; piped or
  // spooled, it would be read as text and fail on its first byte.
  if (input.format === undefined && isSqliteFile(input.path)) {
    return failed(input.name, [`${input.name}: a SQLite database (OpenCode's or Kilo's log?) cannot be read as a text log; give its path: loopguard audit ~/.local/share/opencode/opencode.db`])
  }
  const source: TraceSource = { path: input.path, name: input.name, format: input.format ?? (yield* detectFileFormat(input.path)) }
  const check = yield* Effect.result(checkTrace(source, config.input.maxLineBytes))
  const name = source.name
  if (check._tag === "Failure") return failed(name, [check.failure])
  if (check.success.errors.length > 0) return failed(name, check.success.errors.map(formatTraceProblem))
  // Two different secrets stay two to the detectors (a fresh page token each call is no repeat);
  // what the result quotes reads the plain mark.
  const redact = input.redact === undefined ? undefined : distinctRedactions(input.redact)
  const exit = yield* Effect.exit(replayFile(source, check.success, config, progress, redact))
  if (Exit.isFailure(exit)) {
    const reason = Cause.squash(exit.cause)
    return failed(name, [typeof reason === "string" ? reason : `${name}: replay failed: ${Cause.pretty(exit.cause).split("\n")[0]}`])
  }
  const result: AuditResult = { _tag: "audited", file: name, ...redactDeep(exit.value, plainRedactions) }
  return result
})

/** Audits each file in order; failed files are results too, never an error of the whole batch. */
export const auditFiles = (files: ReadonlyArray<string>, config: LoopguardConfig = auditConfig()): Effect.Effect<Array<AuditResult>> =>
  Effect.forEach(files, (file) => auditFile(file, config))
