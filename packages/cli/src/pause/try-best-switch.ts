/**
 * Pauses only happen with try-best on (`tryBest.enabled`, default false). Asking for a pause
 * policy on the command line is taken as asking for try-best: `--on-pause` turns it on and says
 * so. A policy set only in the config file or environment while try-best is off changes nothing,
 * and the user is told rather than left to wonder why no pause ever came.
 */
import type { LoopguardConfig } from "@loopguard/effect"

export interface TryBestSwitch {
  readonly config: LoopguardConfig
  /** Lines for stderr (empty when nothing needed saying). */
  readonly notes: ReadonlyArray<string>
}

export const applyOnPauseFlag = (config: LoopguardConfig, onPauseFlagGiven: boolean): TryBestSwitch => {
  if (config.tryBest.enabled) return { config, notes: [] }
  if (onPauseFlagGiven) {
    return {
      config: { ...config, tryBest: { ...config.tryBest, enabled: true } },
      notes: [`try-best enabled by --on-pause ${config.tryBest.onPause} (tryBest.enabled was false)`]
    }
  }
  if (config.tryBest.onPause !== "stop") {
    return {
      config,
      notes: [`tryBest.onPause is ${config.tryBest.onPause} but tryBest.enabled is false, so no pause will happen; enable try-best or pass --on-pause`]
    }
  }
  return { config, notes: [] }
}
