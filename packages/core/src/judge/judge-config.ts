/**
 * The config sections the cross-step judge reads, as plain types: the Effect package validates the
 * whole config with Schema and hands its value here; hosts without Effect (the AI SDK agent
 * helpers, the proxy) start from `DEFAULT_JUDGE_CONFIG` and override sections.
 */
import { DEFAULT_EDIT_TOOLS, DEFAULT_SHELL_TOOLS, DEFAULT_VERIFICATION_PATTERNS, type TryBestOptions } from "../try-best/index.js"

/** The Try-Best monitor options a config file sets (the section's other keys are the run's, not the monitor's). */
export const TRY_BEST_CONFIG_FIELDS = ["editWindow", "editSimilarity", "editMatches", "actionStreak", "failedCommandRetries", "editTools", "shellTools", "verificationPatterns"] as const
type TryBestConfigField = (typeof TRY_BEST_CONFIG_FIELDS)[number]

export interface JudgeConfig {
  readonly loop: { readonly costBudgetUsd: number | null }
  readonly textLoop: { readonly enabled: boolean; readonly bufferSize: number; readonly repeats: number; readonly keyChars: number }
  readonly repeatedAction: { readonly enabled: boolean; readonly repeats: number; readonly remindAt: number; readonly stopAt: number | null }
  readonly actionCycle: { readonly enabled: boolean; readonly maxPeriod: number; readonly replays: number }
  readonly repeatedObservation: {
    readonly enabled: boolean
    readonly repeats: number
    readonly failedRepeats: number
    readonly window: number
    readonly windowRepeats: number
  }
  readonly repeatedFailure: { readonly enabled: boolean; readonly repeats: number; readonly lookback: number }
  readonly variedRetry: { readonly enabled: boolean; readonly repeats: number; readonly window: number }
  readonly failureStreak: { readonly enabled: boolean; readonly steps: number }
  readonly replayedSequence: { readonly enabled: boolean; readonly minLength: number; readonly lookback: number }
  readonly noProgressSpin: { readonly enabled: boolean; readonly window: number; readonly minRepeats: number }
  readonly doomLoop: { readonly enabled: boolean; readonly repeats: number }
  readonly loopStreakRecovery: { readonly enabled: boolean; readonly triggerCount: number; readonly maxSpan: number; readonly cacheRiskBlocks: number }
  /** The Try-Best monitor's own options (the config spells them as the monitor does), and its switch. */
  readonly tryBest: { readonly enabled: boolean } & Pick<TryBestOptions, TryBestConfigField>
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

/** Why a loop ladder does not climb (note at `repeats`, reminder at `remindAt`, stop at `stopAt`), or null: one rule for the config file and the agent helpers' options. */
export const ladderProblem = (a: JudgeConfig["repeatedAction"]): string | null =>
  a.remindAt < a.repeats || (a.stopAt !== null && a.stopAt < a.remindAt) ? `the ladder must climb: repeats (${a.repeats}) <= remindAt (${a.remindAt}) <= stopAt (${a.stopAt})` : null

/** The defaults of every section the judge reads (the same values the full config starts from). */
export const DEFAULT_JUDGE_CONFIG: JudgeConfig = {
  loop: { costBudgetUsd: null },
  textLoop: { enabled: true, bufferSize: 5, repeats: 3, keyChars: 200 },
  repeatedAction: { enabled: true, repeats: 3, remindAt: 5, stopAt: 8 },
  actionCycle: { enabled: true, maxPeriod: 20, replays: 4 },
  repeatedObservation: { enabled: true, repeats: 5, failedRepeats: 3, window: 10, windowRepeats: 7 },
  repeatedFailure: { enabled: true, repeats: 3, lookback: 20 },
  variedRetry: { enabled: true, repeats: 4, window: 15 },
  failureStreak: { enabled: true, steps: 8 },
  replayedSequence: { enabled: true, minLength: 6, lookback: 60 },
  noProgressSpin: { enabled: true, window: 10, minRepeats: 6 },
  doomLoop: { enabled: true, repeats: 3 },
  loopStreakRecovery: { enabled: false, triggerCount: 3, maxSpan: 64, cacheRiskBlocks: 20 },
  tryBest: {
    enabled: false,
    editWindow: 12,
    editSimilarity: 0.8,
    // Off: below the precision bar on real runs (docs/loops.md); 2 and 4 are the values to turn them on with.
    editMatches: 0,
    actionStreak: 0,
    failedCommandRetries: 3,
    editTools: DEFAULT_EDIT_TOOLS,
    shellTools: DEFAULT_SHELL_TOOLS,
    verificationPatterns: DEFAULT_VERIFICATION_PATTERNS
  },
  stall: { enabled: false, noFileChangeSteps: 30, maxCompactions: 5, costRatio: 0.8, requiredArtefacts: [], spendFlatWindow: 10 },
  breaker: { enabled: true, consecutiveFailures: 3, window: 10, failureRate: 0.6, minSamples: 5, recoverySuccesses: 3, cooldownSteps: 2, fallback: null }
}
