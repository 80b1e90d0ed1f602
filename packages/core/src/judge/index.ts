/**
 * The cross-step judge: every detector that looks across steps (text loop, repeated action,
 * cycles, observations, failures, spins, streak crop, breaker, stall signals), fed one recorded
 * step at a time. Hosts (the RunLoop, the AI SDK agent helpers, the proxy) carry out what it asks.
 */
export { CrossStepDetectors, stallOptionsOf, type AfterStep, type KeptHistory } from "./cross-step.js"
export type { StepContext, StepDetector, StepFacts, StepVerdict } from "./detectors/step-detector.js"
export { LoopEpisodes, type LoopFinding, type LoopOutcome } from "./loop-episodes.js"
export { tryBestOptionsOf } from "./try-best-options.js"
export { DEFAULT_JUDGE_CONFIG, ladderProblem, type JudgeConfig } from "./judge-config.js"
export { answerOf, stepsOf, stopSentence } from "./stop-words.js"
