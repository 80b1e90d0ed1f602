/**
 * The one interface of the cross-step detectors: each is fed the facts of one recorded step and
 * answers with a verdict; `CrossStepDetectors.afterStep` merges the verdicts in a fixed order.
 */
import type { StepRecordLog } from "../../loops/index.js"
import type { AssistantMessage, CropMarker, ExitReason, Message, ReminderKind } from "../../model/index.js"
import type { Incident } from "../../report/index.js"

export interface StepContext {
  readonly final: boolean
  readonly costUsd: number | null
  readonly toolsPaused?: boolean
  readonly compacted?: boolean
  /** The reply was cut in the stream for repeating itself: its own recovery handles it, and it is not one more step of a text loop. */
  readonly cutForRepetition?: boolean
}

/** What the history view keeps step by step, so detectors need not walk the messages whole. */
export interface KeptHistory {
  /** The step records of the messages. */
  readonly records: StepRecordLog
  /** Every crop marker persisted on the messages (`persistedCrops`). */
  readonly crops: ReadonlyArray<CropMarker>
  /** The place of the newest real (non-synthetic) user message, -1 for none. */
  readonly newestUserAt: number
}

export interface StepFacts {
  readonly messages: ReadonlyArray<Message>
  readonly reply: AssistantMessage
  readonly step: number
  readonly ctx: StepContext
  readonly kept: KeptHistory | undefined
  /** A crop was made for the request that produced this reply (the text loop skips such a reply). */
  readonly cropped: boolean
}

export type Reminder = { readonly kind: ReminderKind; readonly text: string }
export type StepExit = { readonly reason: ExitReason; readonly error: { readonly tag: string; readonly message: string } }
export type CropRequest = { readonly on: string; readonly marker: CropMarker }
export type PauseRequest = Readonly<Record<string, unknown>>

/**
 * One detector's answer for a step. `exit` and `pause` replace what earlier detectors asked for;
 * `exitIfNone` and `pauseIfNone` apply only when nothing earlier did.
 */
export interface StepVerdict {
  readonly incidents?: ReadonlyArray<Incident>
  readonly reminders?: ReadonlyArray<Reminder>
  readonly crop?: CropRequest
  /** A crop was found this step: it applies to the next request, whose reply the text loop skips. */
  readonly cropped?: boolean
  readonly exit?: StepExit
  readonly exitIfNone?: StepExit
  readonly pause?: PauseRequest
  readonly pauseIfNone?: PauseRequest
  readonly breakerTrip?: "degrade" | "reroute"
  /** The note for the next request, replacing any earlier one (null clears it). */
  readonly note?: string | null
}

export interface StepDetector {
  push(step: StepFacts): StepVerdict
}

export const NO_VERDICT: StepVerdict = {}
