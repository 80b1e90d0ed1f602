/**
 * The config an audit runs with: the documented defaults with every detector switched on (the opt-in
 * ones included) and no transport retries, since a recorded error already happened once and
 * retrying it would make the replay ask for a step that is not there.
 */
import { DEFAULT_CONFIG } from "../config/defaults.js"
import { BUDGET_NAMES, type LoopguardConfig } from "../config/schema.js"

/** The config an audit replays with: `base` with every detector on and transport retries off. */
export const auditConfig = (base: LoopguardConfig = DEFAULT_CONFIG): LoopguardConfig => ({
  ...base,
  repeat: { ...base.repeat, enabled: true },
  textLoop: { ...base.textLoop, enabled: true },
  repeatedAction: { ...base.repeatedAction, enabled: true },
  doomLoop: { ...base.doomLoop, enabled: true },
  loopStreakRecovery: { ...base.loopStreakRecovery, enabled: true },
  tryBest: { ...base.tryBest, enabled: true },
  // Stall signals run in every shadow replay as warnings; `enabled` would make them pause (an exit).
  stall: { ...base.stall, enabled: false },
  breaker: { ...base.breaker, enabled: true },
  // A background agent: nobody answers permission questions during a replay.
  loop: { ...base.loop, interactive: false, stepTimeoutMs: null },
  retry: Object.fromEntries(BUDGET_NAMES.map((k) => [k, { mode: "bounded", maxRetries: 0 }])) as LoopguardConfig["retry"]
})
