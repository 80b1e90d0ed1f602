/**
 * @loopguard/ai-sdk/agent: loopguard for AI SDK agent loops (`ToolLoopAgent`, `generateText` and
 * `streamText` with `stopWhen`) without Effect. It imports `@loopguard/core` and `ai` only.
 */
export { LoopguardAgent, loopguardAgent, loopguardPrepareStep, loopguardStopWhen, type GuardableSettings } from "./agent.js"
export type { LoopguardAgentReport } from "./agent-report.js"
export type { LoopguardAgentEvent, LoopguardEventIds } from "./events.js"
export { LoopguardAgentOptionsError, type AgentBudgets, type JudgeSections, type LoopguardAgentOptions } from "./options.js"
export { loopguardMiddleware } from "../middleware/middleware.js"
export { LoopguardMiddlewareOptionsError, type LoopguardMiddlewareOptions, type LoopguardTrip, type LoopguardTripEvent, type TripIds } from "../middleware/options.js"
