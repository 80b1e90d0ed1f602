/**
 * The policy of one step of the run loop, as pure functions: the run's state and a step's facts in,
 * the next state and a list of actions out (`StepAction`). The host (the Effect run loop) gathers
 * the facts — model replies, tool results, compaction summaries — and applies the actions.
 */
export * from "./state.js"
export * from "./actions.js"
export * from "./caps.js"
export * from "./outcome.js"
export * from "./recovery.js"
export * from "./cross-step.js"
export * from "./compaction.js"
export * from "./resume.js"
export * from "./subagent.js"
export * from "./start.js"
export * from "./gates.js"
