import type { TryBestOptions } from "../try-best/index.js"
import { TRY_BEST_CONFIG_FIELDS, type JudgeConfig } from "./judge-config.js"

/** The config file's `tryBest` section → the core monitor's options (the same names; the run's own keys left out). */
export const tryBestOptionsOf = (config: JudgeConfig): Partial<TryBestOptions> =>
  Object.fromEntries(TRY_BEST_CONFIG_FIELDS.map((field) => [field, config.tryBest[field]])) as Partial<TryBestOptions>
