import type { TryBestOptions } from "../try-best/index.js"
import type { JudgeConfig } from "./judge-config.js"

/** The config file's `tryBest` section → the core monitor's options. */
export const tryBestOptionsOf = (config: JudgeConfig): Partial<TryBestOptions> => ({
  editWindow: config.tryBest.editWindow,
  editSimilarity: config.tryBest.editSimilarity,
  editMatches: config.tryBest.editMatches,
  actionStreak: config.tryBest.actionStreak,
  failedCommandRetries: config.tryBest.failedCommandRetries,
  editTools: config.tryBest.editTools,
  shellTools: config.tryBest.shellTools,
  verificationPatterns: config.tryBest.verificationPatterns
})
