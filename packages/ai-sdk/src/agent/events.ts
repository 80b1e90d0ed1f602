/**
 * What the agent helpers tell `onEvent`: every incident, reminder and stop, and each step's
 * tokens. Every event names the session, the provider and the model, so one callback can serve
 * several agents and providers in one process.
 */
import type { ExitReason, ReminderKind } from "@loopguard/core/model"
import type { IncidentKind } from "@loopguard/core/report"

export interface LoopguardEventIds {
  readonly sessionId: string
  /** The AI SDK provider id of the step's model (`openai.chat`, `my-server.chat`…). */
  readonly provider: string
  readonly modelId: string
}

export type LoopguardAgentEvent = LoopguardEventIds &
  (
    | {
        readonly type: "step.finished"
        readonly step: number
        readonly finish: string
        /** Tokens the step used; `estimated` when a cut or failed step's were estimated from what it streamed. */
        readonly tokens: { readonly input: number; readonly output: number; readonly estimated: boolean }
      }
    | {
        readonly type: "incident"
        readonly step: number
        readonly detector: string
        readonly action: string
        readonly kind: IncidentKind
        readonly detail?: Readonly<Record<string, unknown>>
      }
    | {
        readonly type: "reminder"
        readonly step: number
        /** `note`: for the next request only; the others stay in the conversation. */
        readonly kind: "note" | ReminderKind
        readonly text: string
      }
    | { readonly type: "stop"; readonly step: number; readonly reason: ExitReason; readonly message: string }
  )

/** Calls `onEvent`, ignoring what it throws (a logging hook must not break the run). */
export const publishTo =
  (onEvent: (event: LoopguardAgentEvent) => void) =>
  (event: LoopguardAgentEvent): void => {
    try {
      onEvent(event)
    } catch {
      // ignored on purpose
    }
  }
