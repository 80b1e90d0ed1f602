/**
 * The config sections the cross-step judge reads, as plain types: the Effect package validates the
 * whole config with Schema and hands its value here; hosts without Effect (the AI SDK agent
 * helpers, the proxy) start from `DEFAULT_JUDGE_CONFIG` and override sections.
 */
import { DEFAULT_EDIT_TOOLS, DEFAULT_SHELL_TOOLS, DEFAULT_VERIFICATION_PATTERNS } from "../try-best/index.js"

export interface JudgeConfig {
  readonly loop: { readonly costBudgetUsd: number | null }
  readonly text_loop: { readonly enabled: boolean; readonly bufferSize: number; readonly repeats: number; readonly keyChars: number }
  readonly repeated_action: { readonly enabled: boolean; readonly repeats: number; readonly remindAt: number; readonly stopAt: number | null }
  readonly action_cycle: { readonly enabled: boolean; readonly maxPeriod: number; readonly replays: number }
  readonly repeated_observation: {
    readonly enabled: boolean
    readonly repeats: number
    readonly failedRepeats: number
    readonly window: number
    readonly windowRepeats: number
  }
  readonly repeated_failure: { readonly enabled: boolean; readonly repeats: number; readonly lookback: number }
  readonly varied_retry: { readonly enabled: boolean; readonly repeats: number; readonly window: number }
  readonly failure_streak: { readonly enabled: boolean; readonly steps: number }
  readonly replayed_sequence: { readonly enabled: boolean; readonly minLength: number; readonly lookback: number }
  readonly no_progress_spin: { readonly enabled: boolean; readonly window: number; readonly minRepeats: number }
  readonly doom_loop: { readonly enabled: boolean; readonly repeats: number }
  readonly loop_streak_recovery: { readonly enabled: boolean; readonly trigger_count: number; readonly max_span: number; readonly cache_risk_blocks: number }
  readonly try_best: {
    readonly enabled: boolean
    readonly edit_window: number
    readonly edit_similarity: number
    readonly edit_matches: number
    readonly action_streak: number
    readonly failed_command_retries: number
    readonly edit_tools: ReadonlyArray<string>
    readonly shell_tools: ReadonlyArray<string>
    readonly verification_patterns: ReadonlyArray<string>
  }
  readonly stall: {
    readonly enabled: boolean
    readonly noFileChangeSteps: number | null
    readonly maxCompactions: number | null
    readonly costRatio: number | null
    readonly requiredArtefacts: ReadonlyArray<string>
    readonly spendFlatWindow: number | null
  }
  readonly breaker: {
    readonly enabled: boolean
    readonly consecutiveFailures: number
    readonly window: number
    readonly failureRate: number
    readonly minSamples: number
    readonly recoverySuccesses: number
    readonly cooldownSteps: number
    readonly fallback: string | null
  }
}

/** The defaults of every section the judge reads (the same values the full config starts from). */
export const DEFAULT_JUDGE_CONFIG: JudgeConfig = {
  loop: { costBudgetUsd: null },
  text_loop: { enabled: true, bufferSize: 5, repeats: 3, keyChars: 200 },
  repeated_action: { enabled: true, repeats: 3, remindAt: 5, stopAt: 8 },
  action_cycle: { enabled: true, maxPeriod: 20, replays: 4 },
  repeated_observation: { enabled: true, repeats: 5, failedRepeats: 3, window: 10, windowRepeats: 7 },
  repeated_failure: { enabled: true, repeats: 3, lookback: 20 },
  varied_retry: { enabled: true, repeats: 4, window: 15 },
  failure_streak: { enabled: true, steps: 8 },
  replayed_sequence: { enabled: true, minLength: 6, lookback: 60 },
  no_progress_spin: { enabled: true, window: 10, minRepeats: 6 },
  doom_loop: { enabled: true, repeats: 3 },
  loop_streak_recovery: { enabled: false, trigger_count: 3, max_span: 64, cache_risk_blocks: 20 },
  try_best: {
    enabled: false,
    edit_window: 12,
    edit_similarity: 0.8,
    // Off: below the precision bar on real runs (docs/loops.md); 2 and 4 are the values to turn them on with.
    edit_matches: 0,
    action_streak: 0,
    failed_command_retries: 3,
    edit_tools: DEFAULT_EDIT_TOOLS,
    shell_tools: DEFAULT_SHELL_TOOLS,
    verification_patterns: DEFAULT_VERIFICATION_PATTERNS
  },
  stall: { enabled: false, noFileChangeSteps: 30, maxCompactions: 5, costRatio: 0.8, requiredArtefacts: [], spendFlatWindow: 10 },
  breaker: { enabled: true, consecutiveFailures: 3, window: 10, failureRate: 0.6, minSamples: 5, recoverySuccesses: 3, cooldownSteps: 2, fallback: null }
}
