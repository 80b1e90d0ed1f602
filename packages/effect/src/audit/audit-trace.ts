/**
 * One trace file → its audit: parse, replay every recorded step through the real RunLoop in
 * shadow mode (all detectors on, nothing enforced), collect what fired and the first exit the
 * loop would have taken.
 */
import { formatTraceProblem, readTraceText, traceToSteps, type TraceFormat, type TraceReplay } from "@loopguard/core/trace"
import { ConfigService } from "../config/ConfigService.js"
import type { LoopguardConfig } from "../config/schema.js"
import { Events } from "../events/Events.js"
import { loopguardLayer } from "../layers.js"
import { Permission } from "../processor/ToolGate.js"
import { layerReplay } from "../replay/layer.js"
import { RunLoop } from "../runloop/RunLoop.js"
import type { RunResult } from "../runloop/run-types.js"
import { makeMemoryStore, SessionStore, type SessionStoreShape } from "../store/SessionStore.js"
import type { LLM } from "../llm/LLM.js"
import type { Tools } from "../tools/Tools.js"
import { Cause, Effect, Exit, Layer } from "effect"
import { auditConfig } from "./audit-config.js"
import { auditIncidentOf, byStep, withReplySteps, type AuditIncident } from "./incidents.js"

export interface AuditedFile {
  readonly _tag: "audited"
  readonly file: string
  /** The log format the file was read as (`trace` is trace v1). */
  readonly format: TraceFormat
  readonly steps: number
  readonly incidents: ReadonlyArray<AuditIncident>
  readonly exit: AuditExit | null
  /** Consistency notes that are not errors (a call without a result, an orphan result). */
  readonly notes: ReadonlyArray<string>
}

export interface FailedFile {
  readonly _tag: "failed"
  readonly file: string
  /** Every problem as `file:line: message`, first one first. */
  readonly errors: ReadonlyArray<string>
}

export type AuditResult = AuditedFile | FailedFile

const SESSION = "audit"

/** User lines before step i, as the RunLoop asks for them; the very first one is the prompt. */
export const userTurns = (replay: TraceReplay) => {
  const first = replay.steps[0]?.users[0]
  const before = (step: number): ReadonlyArray<string> => {
    const users = step < replay.steps.length ? (replay.steps[step]?.users ?? []) : replay.trailingUsers
    return users.filter((u) => u !== first).map((u) => u.text)
  }
  return { prompt: first?.text, before }
}

/** The RunLoop's own record of the first exit when it exposes one, else read from the events. */
export interface AuditExit {
  readonly reason: string
  readonly step: number
}

const exitOf = (result: RunResult): AuditExit | null => (result.exit ? { reason: result.exit.reason, step: result.exit.step } : null)

/** What one shadow replay needs: the recorded replies as LLM and Tools, and the store it writes to. */
export interface ShadowReplayInput {
  readonly replay: Layer.Layer<LLM | Tools>
  readonly store: SessionStoreShape
  readonly steps: number
  readonly prompt: string | undefined
  readonly userTurnsBefore: (step: number) => ReadonlyArray<string>
}

/** Runs the RunLoop in shadow mode over `input`; the incidents it published (by step) and its first exit. */
export const shadowReplay = (input: ShadowReplayInput, config: LoopguardConfig) =>
  Effect.gen(function* () {
    // The run's own incident list is the audit's (incidents have one door: the report's are the
    // published ones), so the events of a long replay need not be kept at all.
    const deps = Layer.mergeAll(
      input.replay,
      Layer.succeed(ConfigService, config),
      Layer.succeed(Events, Events.make(() => undefined)),
      Permission.layerDeny,
      Layer.succeed(SessionStore, SessionStore.of(input.store))
    )
    const run = Effect.gen(function* () {
      return yield* (yield* RunLoop).run({
        sessionId: SESSION,
        ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
        shadow: true,
        maxSteps: input.steps,
        userTurnsBefore: input.userTurnsBefore
      })
    })
    const result = yield* Effect.provide(run, loopguardLayer(deps))
    return { incidents: byStep(result.incidents.map(auditIncidentOf)), exit: exitOf(result) }
  })

/** Replays parsed trace steps through the real RunLoop in shadow mode; the incidents it raised and its first exit. */
export const replayTrace = (replay: TraceReplay, config: LoopguardConfig = auditConfig()) =>
  Effect.gen(function* () {
    const replies = replay.steps.map((s) => s.reply)
    const turns = userTurns(replay)
    const store = makeMemoryStore()
    const layer = layerReplay(replies, replay.session?.model !== undefined ? { modelId: replay.session.model } : {})
    const run = yield* shadowReplay({ replay: layer, store, steps: replies.length, prompt: turns.prompt, userTurnsBefore: turns.before }, config)
    const messages = yield* store.messages(SESSION)
    return { steps: replies.length, incidents: run.incidents.map((i) => withReplySteps(i, messages)), exit: run.exit }
  })

/**
 * One log file's text → its audit (`failed` with file:line problems when trace v1 does not parse).
 * `format` defaults to the one detected from the text.
 */
export const auditTrace = (file: string, text: string, config?: LoopguardConfig, format?: TraceFormat): Effect.Effect<AuditResult> =>
  Effect.gen(function* () {
    const parsed = readTraceText(text, file, format)
    if (parsed.errors.length > 0) return { _tag: "failed", file, errors: parsed.errors.map(formatTraceProblem) } satisfies FailedFile
    const replay = traceToSteps(parsed.lines)
    const exit = yield* Effect.exit(replayTrace(replay, config))
    if (Exit.isFailure(exit)) {
      return { _tag: "failed", file, errors: [`${file}: replay failed: ${Cause.pretty(exit.cause).split("\n")[0]}`] } satisfies FailedFile
    }
    const found = replay.problems.map((p) => ({ file, ...p }))
    return {
      _tag: "audited",
      file,
      format: parsed.format,
      ...exit.value,
      notes: [...parsed.notes, ...found].sort((x, y) => x.line - y.line).map(formatTraceProblem)
    } satisfies AuditedFile
  })
