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
export { parseTrace, parseCutJson, TraceLineParser, type ParsedLine, type LineCut } from "./parse.js"
export { LineSplitter, type SplitLine } from "./line-splitter.js"
export { traceToSteps, TraceStepAssembler, traceUserId, traceReplyId, type TraceStep, type TraceReplay } from "./to-steps.js"
export { inferFailure, readUnrecordedResult, FAILURE_SIGNS, type FailureSign, type ReadResult } from "./infer-failure.js"
export { TRACE_FORMATS, isTraceFormat, detectFormat, detectionHead, DETECT_HEAD_CHARS, DETECT_MAX_CHARS, readerFor, readTraceText, toTraceV1, type TraceFormat, type TraceReader, type ReadOut, type ReadTrace } from "./formats/index.js"
