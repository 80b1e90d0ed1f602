export { foldText, dropLeadingPrefix, firstChars } from "./normalize.js"
export {
  TEXT_LOOP_MILD_PROMPT,
  TEXT_LOOP_STRONG_PROMPT,
  TEXT_LOOP_TERMINATE_MESSAGE,
  REPEATED_ACTION_NOTE,
  CONTINUE_TEXT
} from "./prompts.js"
export {
  TextLoopDetector,
  DEFAULT_TEXT_LOOP,
  textLoopKey,
  type TextLoopOptions,
  type TextLoopState,
  type TextLoopLevel,
  type TextLoopTrigger,
  type TextLoopStep,
  type TextLoopContext
} from "./text-loop.js"
export {
  repeatedAction,
  isFinishedReply,
  DEFAULT_REPEATED_ACTION,
  MIN_COUNTED_RUN,
  type RepeatedAction,
  type RepeatedActionOptions
} from "./repeated-action.js"
export { doomLoop, DEFAULT_DOOM_LOOP, type DoomLoop, type DoomLoopOptions } from "./doom-loop.js"
export { replyKey, reasoningHash, REASON_HASH_HEX } from "./reply-key.js"
export { detectStreak, DEFAULT_LOOP_STREAK, type LoopStreakOptions, type StreakDetection } from "./streak.js"
export {
  applyCrops,
  buildRequestView,
  persistedCrops,
  contentBlocks,
  DEFAULT_CROP,
  DEFAULT_REQUEST_VIEW,
  type CropOptions,
  type CroppedView,
  type RequestViewOptions
} from "./crop.js"
export { countingOn, progressOf } from "./progress-counter.js"
export { steppingOnward, stepsDebugger } from "./debugger-steps.js"
export { actionCycle, DEFAULT_ACTION_CYCLE, type ActionCycle, type ActionCycleOptions } from "./action-cycle.js"
export { recordOf, replyChangedFiles, stepRecords, stepRecordOf, StepRecordLog, maskObservation, isExploration, isWritingCommand, type StepRecord } from "./step-record.js"
export {
  repeatedObservation,
  DEFAULT_REPEATED_OBSERVATION,
  type RepeatedObservation,
  type RepeatedObservationOptions
} from "./repeated-observation.js"
export { replayedSequence, DEFAULT_REPLAYED_SEQUENCE, type ReplayedSequence, type ReplayedSequenceOptions } from "./replayed-sequence.js"
export { noProgressSpin, SpinPrefix, DEFAULT_NO_PROGRESS_SPIN, type NoProgressSpin, type NoProgressSpinOptions } from "./no-progress-spin.js"
export { EpisodeLadder, levelOf, DEFAULT_LADDER, type LadderCounts, type LoopLevel } from "./escalation.js"
export { repeatedFailure, DEFAULT_REPEATED_FAILURE, type RepeatedFailure, type RepeatedFailureOptions } from "./repeated-failure.js"
export { variedRetry, DEFAULT_VARIED_RETRY, type VariedRetry, type VariedRetryOptions } from "./varied-retry.js"
export { commandSkeleton, commandArguments, isPollCommand, waitSecondsOf } from "./command-skeleton.js"
export { clockless, pollingOnward, pollOverdue, waitingNow, waitStateOf, isWaiting, waitingOnStartup, startupLooks, STARTUP_LOOKS, type WaitState, sawNew, pollPatience, POLL_MOST_S, POLL_MOST_UNCHANGED, POLL_PATIENCE_S } from "./poll-wait.js"
export { failureStreak, DEFAULT_FAILURE_STREAK, type FailureStreak, type FailureStreakOptions } from "./failure-streak.js"
