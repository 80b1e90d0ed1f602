/**
 * The config an audit runs with: SPEC defaults with every detector switched on (the opt-in
 * ones included) and no transport retries, since a recorded error already happened once and
 * retrying it would make the replay ask for a step that is not there.
 */
import { DEFAULT_CONFIG, type LoopguardConfig } from "@loopguard/effect"

const RETRY_BUDGETS = ["request", "stream", "maxCandidate", "maxJudge", "network", "server", "unknown", "rateLimit"] as const

export const auditConfig = (base: LoopguardConfig = DEFAULT_CONFIG): LoopguardConfig => ({
  ...base,
  repeat: { ...base.repeat, enabled: true },
  text_loop: { ...base.text_loop, enabled: true },
  repeated_action: { ...base.repeated_action, enabled: true },
  doom_loop: { ...base.doom_loop, enabled: true },
  loop_streak_recovery: { ...base.loop_streak_recovery, enabled: true },
  try_best: { ...base.try_best, enabled: true },
  stall: { ...base.stall, enabled: true },
  breaker: { ...base.breaker, enabled: true },
  // A background agent: nobody answers permission questions during a replay.
  loop: { ...base.loop, interactive: false, stepTimeoutMs: null },
  retry: Object.fromEntries(RETRY_BUDGETS.map((k) => [k, { mode: "bounded", maxRetries: 0 }])) as LoopguardConfig["retry"]
})
