export {
  TRACE_FINISHES,
  TRACE_LINE_TYPES,
  formatTraceProblem,
  type TraceFinish,
  type TraceLineType,
  type TraceSession,
  type TraceUser,
  type TraceToolCall,
  type TraceError,
  type TraceAssistant,
  type TraceToolResult,
  type TraceLine,
  type TraceProblem,
  type ParsedTrace
} from "./types.js"
export { parseTrace } from "./parse.js"
export { traceToSteps, traceUserId, traceReplyId, type TraceStep, type TraceReplay } from "./to-steps.js"
export { inferFailure, FAILURE_SIGNS, type FailureSign } from "./infer-failure.js"
