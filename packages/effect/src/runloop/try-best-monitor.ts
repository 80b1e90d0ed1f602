/**
 * The Try-Best monitor as a stream monitor for the SessionProcessor: it sees every finished tool
 * call and pauses the step when the agent keeps trying the same thing (SPEC §6).
 * Built when Try-Best is on, and always in shadow mode so audits report it.
 *
 * The detector's state belongs to the session, not the run (seed 001): its edit window, failure
 * counts and streaks carry over from one user turn to the next, and only an incident resets them.
 * `TryBestSessions` keeps one detector per session id for as long as the RunLoop lives.
 */
import { pauseNotice, TryBestMonitor } from "@loopguard/core/try-best"
import type { LoopguardConfig } from "../config/schema.js"
import type { MonitorFactory } from "../processor/monitors.js"
import { tryBestOptionsOf } from "@loopguard/core/judge"

/** One Try-Best detector per session, kept across the session's runs (user turns). */
export class TryBestSessions {
  private readonly bySession = new Map<string, TryBestMonitor>()
  constructor(private readonly config: LoopguardConfig) {}
  /** The session's detector, made on first use. */
  for(sessionId: string): TryBestMonitor {
    let m = this.bySession.get(sessionId)
    if (m === undefined) {
      m = new TryBestMonitor(tryBestOptionsOf(this.config))
      this.bySession.set(sessionId, m)
    }
    return m
  }
}

export const tryBestMonitors = (
  config: LoopguardConfig,
  shadow: boolean,
  tryBest: TryBestMonitor = new TryBestMonitor(tryBestOptionsOf(config))
): ReadonlyArray<MonitorFactory> => {
  if (!config.try_best.enabled && !shadow) return []
  return [
    () => ({
      name: "try-best",
      onToolFinished: (part, at) => {
        const found = tryBest.consume({ part, step: at })
        if (!found) return null
        tryBest.reset()
        return { outcome: "paused", monitor: "try-best", notice: pauseNotice(found), incident: { ...found } }
      }
    })
  ]
}
