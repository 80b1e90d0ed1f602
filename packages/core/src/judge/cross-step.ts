/**
 * The detectors that look across steps, run once after every recorded step: reasoning-loop
 * crop (§4), repeated action (§3), text loop (§3), the error-storm breaker (§8) and the stall
 * signals (§6 "beyond"). Plain state, no Effect: the RunLoop applies what they ask for.
 * Incidents carry the step whose reply raised them, using only what came before it.
 */
import { initBreaker, recordToolResult } from "../caps/index.js"
import { reminderText, type AgentRole } from "../classify/index.js"
import {
  detectStreak,
  persistedCrops,
  TextLoopDetector,
  type StepRecordLog,
  TEXT_LOOP_MILD_PROMPT,
  TEXT_LOOP_STRONG_PROMPT
} from "../loops/index.js"
import {
  toolPartsOf,
  type AssistantMessage,
  type CropMarker,
  type ToolPart,
  type ExitReason,
  type Message,
  type ReminderKind
} from "../model/index.js"
import {
  isVerificationCommand,
  commandOf,
  editPathOf,
  editRecords,
  failed,
  isWritingCommand,
  printedExitCode,
  resolveTryBestOptions,
  toolRole,
  type TryBestOptions,
  StallMonitor,
  verificationMatcher,
  type StallOptionsInput
} from "../try-best/index.js"
import type { JudgeConfig } from "./judge-config.js"
import type { Incident } from "../report/index.js"
import { LoopEpisodes } from "./loop-episodes.js"
import { tryBestOptionsOf } from "./try-best-options.js"

export interface AfterStep {
  readonly incidents: ReadonlyArray<Incident>
  /** A crop to persist on a user message (never in shadow mode). */
  readonly crop: { readonly on: string; readonly marker: CropMarker } | null
  readonly reminders: ReadonlyArray<{ readonly kind: ReminderKind; readonly text: string }>
  readonly exit: { readonly reason: ExitReason; readonly error: { readonly tag: string; readonly message: string } } | null
  /** A stall signal asks to pause the turn (only when `stall.enabled`). */
  readonly pause: Readonly<Record<string, unknown>> | null
  /** The error-storm breaker's rung when it tripped below hand-back (hand-back is `exit`). */
  readonly breakerTrip?: "degrade" | "reroute"
}

/** What a caller keeps of the session step by step, so the detectors need not walk it whole. */
export interface KeptHistory {
  /** The step records of the messages. */
  readonly records: StepRecordLog
  /** Every crop marker persisted on the messages (`persistedCrops`). */
  readonly crops: ReadonlyArray<CropMarker>
  /** The place of the newest real (non-synthetic) user message, -1 for none. */
  readonly newestUserAt: number
}

const TEXT_LOOP_PREFIXES = ["let me ", "i'll ", "i will ", "let's "]

/** Stall-signal options from the config. */
export const stallOptionsOf = (config: JudgeConfig): StallOptionsInput => ({
  noFileChange: { enabled: config.stall.noFileChangeSteps !== null, steps: config.stall.noFileChangeSteps ?? 1 },
  compactions: { enabled: config.stall.maxCompactions !== null, limit: config.stall.maxCompactions ?? 1 },
  cost: {
    enabled: config.stall.costRatio !== null && config.loop.costBudgetUsd !== null,
    fraction: config.stall.costRatio ?? 1,
    ...(config.loop.costBudgetUsd !== null ? { budgetUsd: config.loop.costBudgetUsd } : {})
  },
  artefacts: { enabled: config.stall.requiredArtefacts.length > 0, required: config.stall.requiredArtefacts },
  spendFlat: { enabled: config.stall.spendFlatWindow !== null, window: config.stall.spendFlatWindow ?? 1 }
})

/** The detectors that look across steps (text loop, repeated action, cycles, streaks, stalls) for one run. */
export class CrossStepDetectors {
  private textLoop = TextLoopDetector.init()
  private readonly loops: LoopEpisodes
  private breaker = initBreaker()
  private readonly stall: StallMonitor | null
  private readonly shadowCrops: Array<{ on: string; crop: CropMarker }> = []
  private note: string | null = null
  private loopOpenAfter = false
  /** A crop was made for the request that produced the current reply (the text loop is skipped then, docs/loops.md). */
  private croppedForThisStep = false
  private readonly verification: ReturnType<typeof verificationMatcher>
  private readonly toolKinds: TryBestOptions

  constructor(
    private readonly config: JudgeConfig,
    private readonly role: AgentRole,
    private readonly shadow: boolean,
    /** A fallback model exists, so the breaker's ladder has its reroute rung. */
    private readonly rerouteAvailable = false
  ) {
    this.stall = config.stall.enabled || shadow ? new StallMonitor(stallOptionsOf(config)) : null
    this.loops = new LoopEpisodes(config, role)
    this.toolKinds = resolveTryBestOptions(tryBestOptionsOf(config))
    this.verification = verificationMatcher(this.toolKinds)
  }

  /** Whether a loop episode was open after the last step (a loop detector gave its note). */
  get loopOpen(): boolean {
    return this.loopOpenAfter
  }

  /** Adds a note from another detector of the step (Try-Best's first report) to the next request's. */
  addNote(text: string): void {
    this.note = this.note === null ? text : `${this.note}\n\n${text}`
  }

  /** The repeated-action note for the next request only (ephemeral: never stored). */
  takeNote(): string | null {
    const n = this.note
    this.note = null
    return n
  }

  afterStep(
    messages: ReadonlyArray<Message>,
    reply: AssistantMessage,
    step: number,
    ctx: {
      readonly final: boolean
      readonly costUsd: number | null
      readonly toolsPaused?: boolean
      readonly compacted?: boolean
      /** The reply was cut in the stream for repeating itself: its own recovery handles it, and it is not one more step of a text loop. */
      readonly cutForRepetition?: boolean
    },
    /** What the caller keeps of `messages` step by step (the RunLoop's history view); made from `messages` when absent. */
    kept?: KeptHistory
  ): AfterStep {
    const config = this.config
    const incidents: Array<Incident> = []
    const reminders: Array<{ kind: ReminderKind; text: string }> = []
    let exit: AfterStep["exit"] = null
    let crop: AfterStep["crop"] = null
    let pause: AfterStep["pause"] = null
    let breakerTrip: AfterStep["breakerTrip"]

    // The crop found after reply N applies to request N+1, so it is reply N+1 whose text loop is skipped.
    const cropped = this.croppedForThisStep
    this.croppedForThisStep = false
    if (config.loop_streak_recovery.enabled || this.shadow) {
      // Shadow mode stores nothing, so its would-be crops live here and only steer detection.
      // Markers are applied all at once, so the would-be ones can simply follow the stored ones.
      const stored = kept?.crops ?? persistedCrops(messages)
      const crops = this.shadowCrops.length === 0 ? stored : [...stored, ...this.shadowCrops.map((c) => c.crop)]
      const streak = detectStreak(
        messages,
        { enabled: true, triggerCount: config.loop_streak_recovery.trigger_count, maxSpan: config.loop_streak_recovery.max_span },
        crops,
        kept?.newestUserAt
      )
      if (streak) {
        this.croppedForThisStep = true
        incidents.push({ step, detector: "streak-crop", action: this.shadow ? "detect" : "crop", detail: { ...streak.marker, replies: streak.replyIds.length } })
        // Only the new crop's size matters for the cache: older crops are already in the prefix.
        if (streak.croppedBlocks > config.loop_streak_recovery.cache_risk_blocks) incidents.push({ step, detector: "streak-crop", action: "cache-risk", detail: { croppedBlocks: streak.croppedBlocks } })
        if (streak.persistOn !== null) {
          if (this.shadow) this.shadowCrops.push({ on: streak.persistOn, crop: streak.marker })
          else crop = { on: streak.persistOn, marker: streak.marker }
        }
      }
    }

    // Repeated action, cycles, observations, replays, spins: one escalation ladder (loop-episodes.ts).
    const loops = this.loops.afterStep(messages, step, kept?.records)
    incidents.push(...loops.incidents)
    this.note = loops.note
    this.loopOpenAfter = loops.note !== null
    if (loops.remind !== null) reminders.push({ kind: "loop-remind", text: loops.remind })
    if (loops.stop !== null) {
      if (config.try_best.enabled) pause = loops.stop
      else exit = { reason: "idle", error: { tag: "IdleLoopError", message: String(loops.stop["detail"]) } }
    }

    if (config.text_loop.enabled && ctx.cutForRepetition !== true) {
      const loop = TextLoopDetector.consume(this.textLoop, reply, { cropped }, { ...config.text_loop, prefixes: TEXT_LOOP_PREFIXES })
      this.textLoop = loop.state
      if (loop.trigger) {
        const level = loop.trigger.level
        incidents.push({ step, detector: "text-loop", action: level, detail: { count: loop.trigger.count, key: loop.trigger.key.slice(0, 120) } })
        if (level === "terminate") exit = { reason: "text_loop", error: { tag: "TextLoopError", message: "Text loop detected" } }
        else reminders.push(level === "mild" ? { kind: "text-loop-mild", text: TEXT_LOOP_MILD_PROMPT } : { kind: "text-loop-strong", text: TEXT_LOOP_STRONG_PROMPT })
      }
    }

    // Calls held back by the cooldown never ran: they are no evidence either way.
    if (config.breaker.enabled && ctx.toolsPaused !== true) {
      const options = { ...config.breaker, rerouteAvailable: this.rerouteAvailable }
      for (const part of toolPartsOf(reply)) {
        if (part.state !== "completed" && part.state !== "error") continue
        // A harness that prints its exit status instead of returning it still failed; a search
        // that matched nothing did not.
        const ok = !failed(part)
        const d = recordToolResult(this.breaker, { ok, tool: part.name, ...(part.error !== undefined ? { error: part.error } : {}) }, options)
        this.breaker = d.state
        if (!d.action) continue
        incidents.push({ step, detector: "breaker", action: d.action.type, detail: { trigger: d.action.trigger, detail: d.action.detail } })
        if (d.action.type === "hand-back") exit ??= { reason: "circuit_open", error: d.action.error }
        else {
          breakerTrip = d.action.type
          const kind = d.action.type === "reroute" ? "breaker-reroute" : "breaker-degrade"
          reminders.push({ kind, text: reminderText(kind, this.role) })
        }
      }
    }

    if (this.stall) {
      const parts = toolPartsOf(reply)
      const { changedFiles, wroteFiles } = fileChangesOf(parts, this.toolKinds)
      const verifications = parts.filter((p) => {
        const cmd = commandOf(p.input)
        return cmd !== undefined && isVerificationCommand(cmd, this.verification)
      })
      // A harness that prints its exit status instead of returning it still says whether the run passed.
      const verificationImproved = verifications.some((p) => p.state === "completed" && (p.exitCode ?? printedExitCode(p.output) ?? 0) === 0)
      const verificationRan = verifications.length > 0
      const usage = reply.usage
      const tokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)
      const summary = { step, changedFiles, ...(wroteFiles ? { wroteFiles } : {}), tokens, verificationImproved, verificationRan, final: ctx.final, ...(ctx.compacted === true ? { compaction: true } : {}) }
      for (const s of this.stall.consume({ ...summary, ...(ctx.costUsd !== null ? { costUsd: ctx.costUsd } : {}) })) {
        incidents.push({ step, detector: s.kind, action: config.stall.enabled && !this.shadow ? "pause" : "warn", detail: { ...s } })
        if (config.stall.enabled) pause ??= { ...s }
      }
    }

    return { incidents, crop, reminders, exit, pause, ...(breakerTrip !== undefined ? { breakerTrip } : {}) }
  }
}

/**
 * The files a step's finished calls changed, for the stall signals: edits by any harness's
 * vocabulary (an editor that records no diff still wrote) by path — a patch names its files inside
 * (Codex's apply_patch) — and whether something wrote files whose paths are unknown (a shell
 * command that writes, an edit without a path).
 */
const fileChangesOf = (parts: ReadonlyArray<ToolPart>, kinds: TryBestOptions): { readonly changedFiles: Array<string>; readonly wroteFiles: boolean } => {
  const done = parts.filter((p) => p.state === "completed" && (p.exitCode ?? printedExitCode(p.output) ?? 0) === 0)
  const edits = done.filter((p) => p.diff !== undefined || toolRole(p, kinds) === "edit")
  const changedFiles = edits.flatMap((p) => {
    const path = p.diff !== undefined ? p.path : (editPathOf(p) ?? editRecords(p).find((r) => r.path !== undefined)?.path)
    return path === undefined ? [] : [path]
  })
  const shellWrote = done.some((p) => {
    const command = toolRole(p, kinds) === "shell" ? commandOf(p.input) : undefined
    return command !== undefined && isWritingCommand(command)
  })
  return { changedFiles, wroteFiles: shellWrote || edits.length > changedFiles.length }
}

