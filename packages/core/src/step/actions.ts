/**
 * What the judge asks the host to do. The host alone applies them, and alone knows shadow (audit)
 * mode: replaying, it files what would have happened and changes nothing (see each action).
 */
import type { AssistantMessage, CropMarker, ExclusionReason, ExitReason, ReminderKind } from "../model/index.js"
import type { Incident } from "../report/index.js"
import type { ExitError } from "../classify/index.js"
import type { RunState } from "./state.js"

export type StepAction =
  /** File an incident (once per episode) and publish it as an event. Also in shadow mode. */
  | { readonly _tag: "FileIncident"; readonly incident: Incident }
  /** Publish the step's class (`step.classified`). */
  | { readonly _tag: "Classified"; readonly step: number; readonly class: string; readonly degraded: boolean; readonly reason: string }
  /** Publish a recovery (`recovery`). */
  | { readonly _tag: "Recovered"; readonly step: number; readonly action: string; readonly kind?: string; readonly text?: string }
  /** Publish a pause (`session.try_best.detected`) for the person to answer. */
  | { readonly _tag: "AnnouncePause"; readonly step: number; readonly incident: unknown }
  /** Store a real user message: it becomes the turn the replies answer (also when replaying). */
  | { readonly _tag: "UserTurn"; readonly text: string }
  /** Count a synthetic user message under its kind and store it. Shadow: counted, not stored. */
  | { readonly _tag: "Remind"; readonly kind: ReminderKind; readonly text: string }
  /** Leave a stored reply out of every later request. Shadow: not done. */
  | { readonly _tag: "Exclude"; readonly messageId: string; readonly reason: ExclusionReason }
  /** Leave a reply out and take the step again: it costs no turn (counted under `count`). Shadow: nothing. */
  | { readonly _tag: "TakeBack"; readonly messageId: string; readonly reason: ExclusionReason; readonly count?: string }
  /** Store a compaction summary that stands for the stored range `compacts`. */
  | { readonly _tag: "AppendCompaction"; readonly text: string; readonly compacts: { readonly from: string; readonly to: string } }
  /** Store a crop of the history (the streak recovery). */
  | { readonly _tag: "Crop"; readonly on: string; readonly marker: CropMarker }
  /** The breaker's cooldown: the next `steps` steps run no tool. Shadow: nothing. */
  | { readonly _tag: "CoolDownTools"; readonly steps: number }
  /** The breaker's reroute rung: the rest of the run asks the fallback model (filed). Shadow: nothing. */
  | { readonly _tag: "SwitchModel"; readonly incident: Incident }
  /** End the run with `reason`. Shadow: the first exit is kept and the replay goes on. */
  | { readonly _tag: "Stop"; readonly reason: ExitReason; readonly error?: ExitError }
  /** Run the finish gates (completion check, goal gate) on a final answer; their verdict is judged by `judgeGateVerdict`. Shadow: no gate runs, the answer ends the replay's exit as `final`. */
  | { readonly _tag: "PassFinishGates"; readonly reply: AssistantMessage }
  /** The recorded steps of a replay ran out: the replay ends without an exit. Enforcing: nothing (the step cap decides). */
  | { readonly _tag: "EndReplay" }
  /** Actions only an enforcing run takes; a replay leaves them out entirely (nothing is filed). */
  | { readonly _tag: "Enforce"; readonly actions: ReadonlyArray<StepAction> }
  /** Refuse a tool call with `refusal` and file the cap. Shadow: filed as `detect`, the call runs. */
  | { readonly _tag: "RefuseTool"; readonly refusal: string; readonly incident: Incident }

/** A judgement: the run's next state and what to do about it, in order. */
export interface Judged {
  readonly state: RunState
  readonly actions: ReadonlyArray<StepAction>
}

/** A judgement with `actions` (none by default) that leaves the run in `state`. */
export const judged = (state: RunState, actions: ReadonlyArray<StepAction> = []): Judged => ({ state, actions })

/** File `incident` (once per episode), publish it, keep it for the report. */
export const fileIncident = (incident: Incident): StepAction => ({ _tag: "FileIncident", incident })

/** End the run with `reason` (and `error`, when the way out is a failure). */
export const stopWith = (reason: ExitReason, error?: ExitError): StepAction => (error !== undefined ? { _tag: "Stop", reason, error } : { _tag: "Stop", reason })
