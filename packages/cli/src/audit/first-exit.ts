/**
 * The first exit a shadow run would have taken, read from its events. In shadow mode the RunLoop
 * keeps going past every exit; its report holds the first exit's reason but not its step, so
 * the audit follows the same signals the RunLoop publishes right before it records an exit.
 * (Prefer `RunResult.exit` if the RunLoop ever exposes it: see `exitOf` in audit-trace.ts.)
 */
import type { ExitReason } from "@loopguard/core"
import type { LoopguardEvent } from "@loopguard/effect"

export interface AuditExit {
  readonly reason: ExitReason | string
  readonly step: number
}

const fromEvent = (e: LoopguardEvent): AuditExit | null => {
  switch (e.type) {
    case "recovery":
      if (e.action === "final") return { reason: "final", step: e.step }
      if (e.action === "exit" && e.kind !== undefined) return { reason: e.kind, step: e.step }
      return null
    case "session.try_best.detected":
      return { reason: "try_best_paused", step: e.step }
    case "step.finished":
      // The ToolGate denied a call (doom loop): the step stopped there.
      return e.outcome === "stop" ? { reason: "doom_loop", step: e.step } : null
    case "incident": {
      if (e.detector === "text-loop" && e.action === "terminate") return { reason: "text_loop", step: e.step }
      if (e.detector === "breaker" && e.action === "hand-back") return { reason: "circuit_open", step: e.step }
      if (e.detector === "timeout" && e.action === "stop") return { reason: "timeout", step: e.step }
      if (e.detector === "budget" && e.action === "stop") {
        const reason = (e.detail as { reason?: unknown } | null)?.reason
        return { reason: typeof reason === "string" ? reason : "budget_exhausted", step: e.step }
      }
      return null
    }
    default:
      return null
  }
}

export const firstExit = (events: ReadonlyArray<LoopguardEvent>): AuditExit | null => {
  for (const e of events) {
    const exit = fromEvent(e)
    if (exit !== null) return exit
  }
  return null
}
