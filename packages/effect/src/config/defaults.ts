import { DEFAULT_EDIT_TOOLS, DEFAULT_SHELL_TOOLS, DEFAULT_VERIFICATION_PATTERNS } from "@loopguard/core/try-best"
import { DEFAULT_ENV_DENY } from "../tools/tool-env.js"
import type { LoopguardConfig } from "./schema.js"

/** SPEC.md defaults. The env-variable names are derived from this object's shape. */
export const DEFAULT_CONFIG: LoopguardConfig = {
  repeat: {
    enabled: true,
    window: 500,
    threshold: 20,
    minBlock: 4,
    minDistinct: 3,
    long: { enabled: true, copies: 4, minBlockTokens: 20, minBlockChars: 64, maxBlockChars: 8_000, minWords: 4, runChars: 1_024, shortChars: 4_096 }
  },
  stream: { chunkTimeoutMs: 480_000, progressIntervalMs: 100, maxResponseBytes: 64 * 1024 * 1024, maxEventBytes: 4 * 1024 * 1024 },
  loop: {
    role: "main",
    interactive: false,
    capMode: "hard",
    maxSteps: 50,
    tokenBudget: null,
    costBudgetUsd: null,
    toolTimeoutMs: 120_000,
    stepTimeoutMs: null,
    maxWallMs: null
  },
  recovery: {
    lengthContinuations: 3,
    emptyRetries: 2,
    textToolCallRetries: 2,
    droppedToolCallRetries: 2,
    structuredRetries: 2
  },
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
  rollback: { enabled: true, max_consecutive_rollbacks: 5, dedupe_unlisted_tools: false },
  repair: { enabled: true, tool_name_aliases: {}, tools: {}, drop_null_arguments: true, fix_server_names: true },
  text_tool_calls: { mode: "execute" },
  failure_summary: { enabled: false, max_retries: 1 },
  loop_streak_recovery: { enabled: false, trigger_count: 3, max_span: 64, cache_risk_blocks: 20 },
  retry: {},
  provider: {},
  try_best: {
    enabled: false,
    edit_window: 12,
    edit_similarity: 0.8,
    edit_matches: 2,
    action_streak: 4,
    failed_command_retries: 3,
    edit_tools: DEFAULT_EDIT_TOOLS,
    shell_tools: DEFAULT_SHELL_TOOLS,
    verification_patterns: DEFAULT_VERIFICATION_PATTERNS,
    on_pause: "stop",
    max_resumes: 2,
    handoff_mode: "sandboxed",
    handoff_timeout_ms: 1_800_000
  },
  stall: {
    enabled: false,
    noFileChangeSteps: 30,
    maxCompactions: 5,
    costRatio: 0.8,
    requiredArtefacts: [],
    spendFlatWindow: 10
  },
  breaker: { enabled: true, consecutiveFailures: 3, window: 10, failureRate: 0.6, minSamples: 5, recoverySuccesses: 3, cooldownSteps: 2, fallback: null },
  compaction: { enabled: true, contextTokens: null, triggerRatio: 0.8, keepRecentSteps: 4, maxCompactions: 3, contextSizes: {} },
  subagents: { enabled: false, maxDepth: 2, maxSteps: 20, tokenBudget: null, costBudgetUsd: null, shareOfRemaining: 0.5 },
  toolCaps: { maxCallsPerTool: null, perTool: {} },
  goal_gate: { enabled: false, maxChecks: 20 },
  completion_check: { command: null, timeoutMs: 300_000, maxFailures: 3 },
  store: { leaseMs: 30_000, busyTimeoutMs: 5_000 },
  tools: { maxOutputChars: 20_000, envDeny: DEFAULT_ENV_DENY, envAllow: [], approveCommands: false, chatShell: "ask" },
  input: { maxLineBytes: 8 * 1024 * 1024 },
  audit: { windowSteps: 256 },
  prices: {}
}
