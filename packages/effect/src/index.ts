/**
 * @loopguard/effect: the services a loopguard session runs on, each a `Context.Service` with its
 * Layers, and `loopguardLayer`, the default wiring. A runtime swaps any service by providing its
 * own Layer. Helpers below the services live on subpaths with flat names:
 * `@loopguard/effect/config`, `/events`, `/llm`, `/store`, `/tools`, `/processor`, `/runloop`,
 * `/retry`, `/gate`, `/replay`, `/effect-ai`, `/audit`, `/layers`, `/compaction`.
 */
export { ConfigError, ConfigService, LoopguardConfigError, type ConfigSources } from "./config/ConfigService.js"
export { DEFAULT_CONFIG } from "./config/defaults.js"
export type { ConfigInput } from "./config/load.js"
export type { LoopguardConfig } from "./config/schema.js"
export { Events, type LoopguardEvent } from "./events/Events.js"
export { LLM, LlmError, type LlmRequest, type LlmShape, type RequestMessage, type ToolSpec } from "./llm/LLM.js"
export { FallbackLLM } from "./llm/FallbackLLM.js"
export { SessionStore, makeMemoryStore, type RemovedSessions, type SessionChanges, type SessionStoreShape, type SessionSummary, type StoreCursor } from "./store/SessionStore.js"
export { SessionStoreError, type SessionStoreFailure } from "./store/SessionStoreError.js"
export { layerPostgresStore, layerSqliteStore, makeDurableStore, type DurableStoreOptions } from "./store/durable.js"
export { Tools, makeTools, type AnyToolDefinition, type EffectToolDefinition, type ToolCall, type ToolDefinition, type ToolResult, type ToolRunContext, type ToolsShape } from "./tools/Tools.js"
export { Permission, ToolGate, type PermissionAnswer, type PermissionRequest, type ToolGateVerdict } from "./processor/ToolGate.js"
export { SessionProcessor, type ProcessInput, type ProcessResult, type SessionProcessorShape, type StepOutcome } from "./processor/SessionProcessor.js"
export { RetryCoordinator, type RetryCoordinatorInput, type RetryCoordinatorShape, type RetrySectionInput, type StepRetryOptions } from "./retry/RetryCoordinator.js"
export { RetryConfigError } from "./retry/errors.js"
export { GoalGate } from "./gate/GoalGate.js"
export { CompletionCheck } from "./gate/CompletionCheck.js"
export { CompactionError, Compactor, type CompactionSummary, type CompactorShape } from "./compaction/Compactor.js"
export { RunLoop } from "./runloop/RunLoop.js"
export type { Incident, RunReport } from "./runloop/report.js"
export type { RunBudget, RunExit, RunInput, RunResult } from "./runloop/run-types.js"
export { loopguardLayer, retryForProvider, type LoopguardDeps } from "./layers.js"
export { layerReplay } from "./replay/layer.js"
export { guardLanguageModel, layerFromEffectAi } from "./effect-ai/index.js"
export { auditConfig, auditFile, auditFiles, auditTrace, type AuditIncident, type AuditResult, type AuditedFile, type FailedFile } from "./audit/index.js"
