export { TRACE_FORMATS, isTraceFormat, EMPTY_OUT, type TraceFormat, type TraceReader, type ReadOut } from "./reader.js"
export { DETECT_HEAD_CHARS, DETECT_MAX_CHARS, detectFormat, detectionHead } from "./detect.js"
export { readerFor, readTraceText, type ReadTrace } from "./read-text.js"
export { toTraceV1 } from "./to-trace-v1.js"
