import { DEFAULT_JUDGE_CONFIG as J } from "@loopguard/core/judge"
import { DEFAULT_REPEAT_SETTINGS, DEFAULT_STREAM_LIMITS } from "@loopguard/core/repeat"
import { DEFAULT_ROLLBACK_GUARD_CONFIG } from "@loopguard/core/rollback"
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
  textLoop: J.textLoop,
  repeatedAction: J.repeatedAction,
  actionCycle: J.actionCycle,
  repeatedObservation: J.repeatedObservation,
  repeatedFailure: J.repeatedFailure,
  variedRetry: J.variedRetry,
  failureStreak: J.failureStreak,
  replayedSequence: J.replayedSequence,
  noProgressSpin: J.noProgressSpin,
  doomLoop: J.doomLoop,
  rollback: DEFAULT_ROLLBACK_GUARD_CONFIG.rollback,
  repair: { enabled: true, toolNameAliases: {}, tools: {}, dropNullArguments: true, fixServerNames: true },
  textToolCalls: { mode: "execute" },
  failureSummary: { enabled: false, maxRetries: 1 },
  loopStreakRecovery: J.loopStreakRecovery,
  retry: {},
  provider: {},
  tryBest: {
    ...J.tryBest,
    onPause: "stop",
    maxResumes: 2,
    handoffMode: "sandboxed",
    handoffTimeoutMs: 1_800_000
  },
  stall: J.stall,
  breaker: J.breaker,
  compaction: { enabled: true, contextTokens: null, triggerRatio: 0.8, keepRecentSteps: 4, maxCompactions: 3, contextSizes: {}, maxSummaryChars: 20_000 },
  subagents: { enabled: false, maxDepth: 2, maxSteps: 20, tokenBudget: null, costBudgetUsd: null, shareOfRemaining: 0.5 },
  toolCaps: { maxCallsPerTool: null, perTool: {} },
  goalGate: { enabled: false, maxChecks: 20 },
  completionCheck: { command: null, timeoutMs: 300_000, maxFailures: 3 },
  store: { leaseMs: 30_000, busyTimeoutMs: 5_000, timeoutMs: 30_000 },
  tools: { maxOutputChars: 20_000, envDeny: DEFAULT_ENV_DENY, envAllow: [], envPass: [], approveCommands: false, chatShell: "ask" },
  input: { maxLineBytes: 8 * 1024 * 1024 },
  audit: { windowSteps: 256 },
  proxy: {
    listen: "127.0.0.1:4477",
    upstream: null,
    sessionHeader: "x-loopguard-session",
    maxRequestBytes: 32 * 1024 * 1024,
    requestBodyTimeoutMs: 60_000,
    textToolCalls: false,
    textActions: true,
    upstreamKeyEnv: null,
    allowedOrigins: [],
    tokenEnv: "LOOPGUARD_PROXY_TOKEN",
    routes: {},
    workers: 1,
    maxTurnSteps: null
  },
  prices: {}
}
