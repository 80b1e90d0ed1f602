export { auditConfig } from "./audit-config.js"
export { auditTrace, replayTrace, userTurns, type AuditResult, type AuditedFile, type FailedFile } from "./audit-trace.js"
export { byStep, incidentsOf, withReplySteps, type AuditIncident } from "./incidents.js"
export { humanBlock, overallSummary, shortDetail, timelineLine, toJsonLine } from "./format.js"
