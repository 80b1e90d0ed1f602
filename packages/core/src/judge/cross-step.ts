/**
 * The detectors that look across steps, run once after every recorded step: reasoning-loop
 * crop, the loop ladder (repeated action, cycles, …), text loop, the error-storm breaker and the
 * stall signals (docs/loops.md). Plain state, no Effect: the hosts apply what they ask for.
 * Incidents carry the step whose reply raised them, using only what came before it.
 * Each detector is a `StepDetector` (detectors/); this class runs them in order and merges verdicts.
 */
import type { AgentRole } from "../classify/index.js"
import type { AssistantMessage, CropMarker, ExitReason, Message, ReminderKind } from "../model/index.js"
import type { Incident } from "../report/index.js"
import { BreakerDetector } from "./detectors/breaker.js"
import { LoopLadderDetector } from "./detectors/loop-ladder.js"
import { emptyMerge, mergeInto } from "./detectors/merge.js"
import { StallDetector } from "./detectors/stall.js"
import type { KeptHistory, StepContext, StepDetector } from "./detectors/step-detector.js"
import { StreakCropDetector } from "./detectors/streak-crop.js"
import { TextLoopStepDetector } from "./detectors/text-loop.js"
import type { JudgeConfig } from "./judge-config.js"

export { stallOptionsOf } from "./detectors/stall.js"
export type { KeptHistory } from "./detectors/step-detector.js"

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

/**
 * The detectors of a run in the order their verdicts merge: crop first (its hand-off steers the
 * next step's text loop), then the loop ladder, text loop, breaker and stall signals. Shadow mode
 * keeps the crop and stall detectors running, to report what they would have done.
 */
const detectorsOf = (config: JudgeConfig, role: AgentRole, shadow: boolean, rerouteAvailable: boolean): ReadonlyArray<StepDetector> => [
  ...(config.loopStreakRecovery.enabled || shadow ? [new StreakCropDetector(config.loopStreakRecovery, shadow)] : []),
  new LoopLadderDetector(config, role, config.tryBest.enabled),
  ...(config.textLoop.enabled ? [new TextLoopStepDetector(config.textLoop)] : []),
  ...(config.breaker.enabled ? [new BreakerDetector(config.breaker, role, rerouteAvailable, config.repeatedAction.repeats)] : []),
  ...(config.stall.enabled || shadow ? [new StallDetector(config, shadow)] : [])
]

/** The detectors that look across steps (text loop, repeated action, cycles, streaks, stalls) for one run. */
export class CrossStepDetectors {
  private readonly detectors: ReadonlyArray<StepDetector>
  private note: string | null = null
  private loopOpenAfter = false
  /** A crop was made for the request that produced the current reply (the text loop is skipped then, docs/loops.md). */
  private croppedForThisStep = false

  constructor(
    config: JudgeConfig,
    role: AgentRole,
    shadow: boolean,
    /** A fallback model exists, so the breaker's ladder has its reroute rung. */
    rerouteAvailable = false
  ) {
    this.detectors = detectorsOf(config, role, shadow, rerouteAvailable)
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
    ctx: StepContext,
    /** What the caller keeps of `messages` step by step (the RunLoop's history view); made from `messages` when absent. */
    kept?: KeptHistory
  ): AfterStep {
    // The crop found after reply N applies to request N+1, so it is reply N+1 whose text loop is skipped.
    const facts = { messages, reply, step, ctx, kept, cropped: this.croppedForThisStep }
    const merged = this.detectors.reduce((into, detector) => mergeInto(into, detector.push(facts)), emptyMerge())
    this.croppedForThisStep = merged.cropped
    if (merged.note !== undefined) {
      this.note = merged.note
      this.loopOpenAfter = merged.note !== null
    }
    const { incidents, crop, reminders, exit, pause, breakerTrip } = merged
    return { incidents, crop, reminders, exit, pause, ...(breakerTrip !== undefined ? { breakerTrip } : {}) }
  }
}
