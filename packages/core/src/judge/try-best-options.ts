import type { TryBestOptions } from "../try-best/index.js"
import type { JudgeConfig } from "./judge-config.js"

/** The config file's snake_case `try_best` section → the core monitor's options. */
export const tryBestOptionsOf = (config: JudgeConfig): Partial<TryBestOptions> => ({
  editWindow: config.try_best.edit_window,
  editSimilarity: config.try_best.edit_similarity,
  editMatches: config.try_best.edit_matches,
  actionStreak: config.try_best.action_streak,
  failedCommandRetries: config.try_best.failed_command_retries,
  editTools: config.try_best.edit_tools,
  shellTools: config.try_best.shell_tools,
  verificationPatterns: config.try_best.verification_patterns
})
