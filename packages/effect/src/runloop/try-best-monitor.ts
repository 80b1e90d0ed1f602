/**
 * The Try-Best monitor as a stream monitor for the SessionProcessor: it sees every finished tool
 * call; its first report on a subject is a note (filed after the step, given to the model with the
 * next request), and it pauses the step only when the agent keeps trying the same thing after
 * that note (`TryBestLadder`). Built when Try-Best is on, and always in shadow mode so
 * audits report it.
 *
 * The detector's state belongs to the session, not the run: its edit window, failure
 * counts and streaks carry over from one user turn to the next, and only an incident resets them.
 * `TryBestSessions` keeps one detector per session id for as long as the RunLoop lives.
 */
import { pauseNotice, TryBestLadder, TryBestMonitor } from "@loopguard/core/try-best"
import type { LoopguardConfig } from "../config/schema.js"
import type { MonitorFactory } from "../processor/monitors.js"
import { tryBestOptionsOf } from "@loopguard/core/judge"

/** One Try-Best detector per session, kept across the session's runs (user turns). */
export class TryBestSessions {
  private readonly bySession = new Map<string, TryBestLadder>()
  constructor(private readonly config: LoopguardConfig) {}
  /** The session's detector, made on first use. */
  for(sessionId: string): TryBestLadder {
    let m = this.bySession.get(sessionId)
    if (m === undefined) {
      m = newTryBest(this.config)
      this.bySession.set(sessionId, m)
    }
    return m
  }
}

/** A fresh Try-Best detector with its ladder. */
export const newTryBest = (config: LoopguardConfig): TryBestLadder => new TryBestLadder(new TryBestMonitor(tryBestOptionsOf(config)))

/** Whether a run hosts the Try-Best detector: when it is on, and always in shadow mode. */
export const hostsTryBest = (config: LoopguardConfig, shadow: boolean): boolean => config.tryBest.enabled || shadow

export const tryBestMonitors = (config: LoopguardConfig, shadow: boolean, tryBest: TryBestLadder = newTryBest(config)): ReadonlyArray<MonitorFactory> => {
  if (!hostsTryBest(config, shadow)) return []
  return [
    () => ({
      name: "try-best",
      onToolFinished: (part, at) => {
        // A note stays with the ladder until the step is over (`takeNotes`); only a pause ends the step.
        const verdict = tryBest.judge({ part, step: at })
        if (verdict === null || verdict.level !== "pause") return null
        tryBest.reset()
        return { outcome: "paused", monitor: "try-best", notice: pauseNotice(verdict.incident), incident: { ...verdict.incident } }
      }
    })
  ]
}
