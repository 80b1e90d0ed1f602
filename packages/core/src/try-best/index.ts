// Public API of the Try-Best area (docs/try-best.md): the monitor, stall signals and hand-off.
export {
  DEFAULT_COMMAND_WRAPPERS,
  DEFAULT_EDIT_TOOL_COMMANDS,
  DEFAULT_EDIT_TOOLS,
  DEFAULT_SHELL_TOOLS,
  DEFAULT_READ_TOOLS,
  DEFAULT_BOOKKEEPING_TOOLS,
  DEFAULT_TRY_BEST_OPTIONS,
  DEFAULT_VERIFICATION_PATTERNS,
  resolveTryBestOptions,
  type OutputProgress,
  type TryBestOptions
} from "./options.js"
export { normalizeCommand, normalizeDiff, normalizeOutput } from "./normalize.js"
export { jaccard, shingles } from "./similarity.js"
export { classifyTool, commandContent, commandOf, editPathOf, failed, isNoMatch, isWritingCommand, printedExitCode, shellTextOf, stringField, toolRole, type ToolKind, type ToolRole } from "./tool-kinds.js"
export { editRecords, type EditRecord } from "./edit-records.js"
export { isVerificationCommand, simpleCommands, verificationMatcher, type VerificationMatcher } from "./verification.js"
export {
  TRY_BEST_PAUSE_PREFIX,
  pauseNotice,
  tryBestNote,
  type ActionKind,
  type ActionStreakEvidence,
  type ActionStreakIncident,
  type BashRetryEvidence,
  type BashRetryIncident,
  type EditRepeatEvidence,
  type EditRepeatIncident,
  type TryBestIncident,
  type TryBestKind
} from "./incident.js"
export {
  TryBestMonitor,
  consumeTryBest,
  initTryBest,
  type EditEntry,
  type TryBestEvent,
  type TryBestState,
  type TryBestStep
} from "./monitor.js"
export { globToRegExp, matchGlob } from "./glob.js"
export {
  DEFAULT_STALL_OPTIONS,
  StallMonitor,
  consumeStall,
  initStall,
  resolveStallOptions,
  type Exists,
  type StallIncident,
  type StallKind,
  type StallOptions,
  type StallOptionsInput,
  type StallState,
  type StepSummary
} from "./stall-signals.js"
export { distinctRedactions, plainRedactions } from "./redact-marks.js"
export { DEFAULT_NON_SECRET_ENV, DEFAULT_REDACT_OPTIONS, makeRedactor, makeShapeStreamRedactor, makeStreamRedactor, MIN_SECRET_LENGTH, REDACTED, redactDeep, redactSecrets, shannonEntropy, type RedactOptions, type StreamRedactor } from "./redact.js"
export {
  HANDOFF_COMMANDS,
  HANDOFF_HARNESS_NAMES,
  HANDOFF_INVOCATIONS,
  HANDOFF_TOOL_NAMES,
  buildHandoffMessage,
  continueInstruction,
  handoffTargets,
  modelFamilies,
  modelFamily,
  type HandoffBrief,
  type HandoffTarget,
  type ModelFamily
} from "./handoff.js"
export { pendingPause, type PendingPause } from "./pending-pause.js"
export { availableSkills, HANDOFF_SKILLS, shellWord, skillCommandLine, type HandoffSkill, type SkillMode } from "./skills.js"
export { TryBestLadder, type TryBestLevel, type TryBestVerdict } from "./ladder.js"
