export * from "./GoalGate.js"
export * from "./CompletionCheck.js"
