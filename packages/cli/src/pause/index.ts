export {
  CHOICE_DESCRIPTIONS,
  HANDOFF_TARGETS,
  ON_PAUSE_POLICIES,
  handoffRefusal,
  handoffTargetOf,
  parseOnPause,
  pauseChoices,
  refusalOf,
  type OnPausePolicy,
  type PauseChoice,
  type PauseChoices,
  type UnavailableChoice
} from "./choices.js"
export { commandOnPath, commandsInstalled, type CommandLookup } from "./path-lookup.js"
export { incidentCommand, pausedIncidentOf, type PausedIncident } from "./paused-incident.js"
export { askChoice, askOnTerminal, formatPause, parseAnswer, type AskLine } from "./pause-prompt.js"
export {
  DEFAULT_WORKSPACE_SUMMARY_OPTIONS,
  continueTurn,
  failedApproach,
  handoffTurn,
  validationOf,
  workspaceSummary,
  type HandoffTurnInput,
  type WorkspaceSummaryOptions
} from "./resume-turn.js"
export { makePauseHandler, refusedMessage, type PauseHandler, type PauseHandlerOptions } from "./pause-handler.js"
export { applyOnPauseFlag, type TryBestSwitch } from "./try-best-switch.js"
export {
  DEFAULT_PAUSE_POLICY_OPTIONS,
  runWithPausePolicy,
  type PauseDecision,
  type PausePolicyOptions,
  type PauseRunOptions,
  type PauseRunOutcome
} from "./run-with-pause.js"
