export * from "./errors.js"
export * from "./schedule.js"
export * from "./RetryCoordinator.js"
export * from "./retry-only.js"
