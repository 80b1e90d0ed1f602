export { humanBlock, overallSummary, shortDetail, timelineLine, toJsonLine } from "./format.js"
