/** What the SessionProcessor is asked (one step) and what it answers (the recorded reply and how the step ended). */
import type { AssistantMessage, NormalizedError, Usage } from "@loopguard/core/model"
import type { GuardTrip } from "@loopguard/core/repeat"
import type { Incident } from "@loopguard/core/report"
import type { Effect } from "effect"
import type { LlmRequest, LlmShape } from "../llm/LLM.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import type { ToolResult } from "../tools/Tools.js"
import type { MonitorFactory } from "./monitors.js"

export type StepOutcome =
  | { readonly type: "continue" }
  | {
      readonly type: "text-repeat"
      /** Which rule tripped and where (the short-period rule, `short`, or the long-period rule). */
      readonly trip: GuardTrip
      /** The short-period rule's block length in tokens; null when the long rule tripped. */
      readonly period: number | null
      readonly token: number
      /** Back-to-back copies when it tripped. */
      readonly repeats: number
    }
  | { readonly type: "paused"; readonly incident: Readonly<Record<string, unknown>>; readonly notice: string }
  | { readonly type: "stop"; readonly reason: string }
  | { readonly type: "error"; readonly error: NormalizedError }

export interface ProcessInput {
  readonly sessionId: string
  readonly parentId: string
  readonly step: number
  readonly request: LlmRequest
  /**
   * The request's size in tokens, estimated (`requestTokens`), when the caller has it cheaper than by
   * stringifying the whole history again (the RunLoop's history view keeps a running tally): asked
   * for only when the server sends no usage, and it would otherwise make a long session's steps
   * cost in proportion to the history, every step.
   */
  readonly promptTokens?: () => number
  /** Extra monitors for this step (try-best, tests); the repeat monitor comes from config. */
  readonly monitors?: ReadonlyArray<MonitorFactory>
  /** Tools answered by the caller itself (e.g. the structured-output tool), before the Tools service. */
  readonly localTools?: ReadonlyMap<string, (input: unknown) => Effect.Effect<ToolResult, SessionStoreError>>
  /** Asked before a call runs (per-tool caps): a refusal text means the call is answered, not run. */
  readonly admitTool?: (name: string) => Effect.Effect<string | undefined, SessionStoreError>
  /**
   * What to do with tool calls written in the reply's text: `execute` (default: `textToolCalls.mode`
   * says) or `report` (shadow replays: file what a live run would run, change nothing).
   */
  readonly textToolCalls?: "execute" | "report"
  /**
   * The `session.status` retry number: runs on across phases and steps, reset only when the session
   * goes idle (the RunLoop owns it). Without it, numbers run across the phases of this step only.
   */
  readonly nextStatusAttempt?: () => number
  /** Makes ids for the reply messages (one per attempt). */
  readonly messageId: (attempt: number) => string
  /** The model for this step instead of the layer's `LLM` (the breaker's reroute). */
  readonly llm?: LlmShape
  /** Tools are held back on this step (a tool-less cap step, the breaker's cooldown): calls are answered with this, not run. */
  readonly toolsPaused?: string
}

export interface ProcessResult {
  readonly outcome: StepOutcome
  readonly message: AssistantMessage
  /** How many attempts the step took (1 = no retry). */
  readonly attempts: number
  /** Incidents the processor filed for the recorded attempt (already published as events). */
  readonly incidents: ReadonlyArray<Incident>
  /** What the step's replayed attempts streamed (estimated where the server sent no usage). */
  readonly replayedUsage?: ReadonlyArray<Usage>
  /**
   * What the recorded attempt cost (`streamedUsage`): the server's count, else the estimate marked
   * `estimated` (a step cut short, or a server that sends no usage). Absent only from a processor
   * of the caller's own that does not say.
   */
  readonly usage?: Usage
}
