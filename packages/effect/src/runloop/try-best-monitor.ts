/**
 * The Try-Best monitor as a stream monitor for the SessionProcessor: it sees every finished tool
 * call and pauses the step when the agent keeps trying the same thing (SPEC §6).
 * Built when Try-Best is on, and always in shadow mode so audits report it.
 */
import { pauseNotice, TryBestMonitor } from "@loopguard/core/try-best"
import type { LoopguardConfig } from "../config/schema.js"
import type { MonitorFactory } from "../processor/monitors.js"
import { tryBestOptionsOf } from "./try-best-options.js"

export const tryBestMonitors = (config: LoopguardConfig, shadow: boolean): ReadonlyArray<MonitorFactory> => {
  if (!config.try_best.enabled && !shadow) return []
  const tryBest = new TryBestMonitor(tryBestOptionsOf(config))
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
