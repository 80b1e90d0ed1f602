import { DEFAULT_JUDGE_CONFIG as J } from "@loopguard/core/judge"
import { DEFAULT_REPEAT_SETTINGS, DEFAULT_STREAM_LIMITS } from "@loopguard/core/repeat"
import { DEFAULT_ENV_DENY } from "../tools/tool-env.js"
import type { LoopguardConfig } from "./schema.js"

/** The defaults (docs/config.md lists each). The env-variable names are derived from this object's shape. */
export const DEFAULT_CONFIG: LoopguardConfig = {
  repeat: { ...DEFAULT_REPEAT_SETTINGS, long: { ...DEFAULT_REPEAT_SETTINGS.long } },
  stream: { ...DEFAULT_STREAM_LIMITS },
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
  text_loop: J.text_loop,
  repeated_action: J.repeated_action,
  action_cycle: J.action_cycle,
  repeated_observation: J.repeated_observation,
  repeated_failure: J.repeated_failure,
  varied_retry: J.varied_retry,
  failure_streak: J.failure_streak,
  replayed_sequence: J.replayed_sequence,
  no_progress_spin: J.no_progress_spin,
  doom_loop: J.doom_loop,
  rollback: { enabled: true, max_consecutive_rollbacks: 5, dedupe_unlisted_tools: false },
  repair: { enabled: true, tool_name_aliases: {}, tools: {}, drop_null_arguments: true, fix_server_names: true },
  text_tool_calls: { mode: "execute" },
  failure_summary: { enabled: false, max_retries: 1 },
  loop_streak_recovery: J.loop_streak_recovery,
  retry: {},
  provider: {},
  try_best: {
    ...J.try_best,
    on_pause: "stop",
    max_resumes: 2,
    handoff_mode: "sandboxed",
    handoff_timeout_ms: 1_800_000
  },
  stall: J.stall,
  breaker: J.breaker,
  compaction: { enabled: true, contextTokens: null, triggerRatio: 0.8, keepRecentSteps: 4, maxCompactions: 3, contextSizes: {} },
  subagents: { enabled: false, maxDepth: 2, maxSteps: 20, tokenBudget: null, costBudgetUsd: null, shareOfRemaining: 0.5 },
  toolCaps: { maxCallsPerTool: null, perTool: {} },
  goal_gate: { enabled: false, maxChecks: 20 },
  completion_check: { command: null, timeoutMs: 300_000, maxFailures: 3 },
  store: { leaseMs: 30_000, busyTimeoutMs: 5_000 },
  tools: { maxOutputChars: 20_000, envDeny: DEFAULT_ENV_DENY, envAllow: [], approveCommands: false },
  input: { maxLineBytes: 8 * 1024 * 1024 },
  audit: { windowSteps: 256 },
  proxy: {
    listen: "127.0.0.1:4477",
    upstream: null,
    sessionHeader: "x-loopguard-session",
    maxRequestBytes: 32 * 1024 * 1024,
    textToolCalls: false,
    upstreamKeyEnv: null,
    tokenEnv: "LOOPGUARD_PROXY_TOKEN",
    routes: {}
  },
  prices: {}
}
