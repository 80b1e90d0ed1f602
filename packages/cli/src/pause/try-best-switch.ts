/**
 * Pauses only happen with try-best on (`try_best.enabled`, default false). Asking for a pause
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
  if (config.try_best.enabled) return { config, notes: [] }
  if (onPauseFlagGiven) {
    return {
      config: { ...config, try_best: { ...config.try_best, enabled: true } },
      notes: [`try-best enabled by --on-pause ${config.try_best.on_pause} (try_best.enabled was false)`]
    }
  }
  if (config.try_best.on_pause !== "stop") {
    return {
      config,
      notes: [`try_best.on_pause is ${config.try_best.on_pause} but try_best.enabled is false, so no pause will happen; enable try-best or pass --on-pause`]
    }
  }
  return { config, notes: [] }
}
