export * from "./exit-outcomes.js"
export * from "./run-report.js"
export * from "./incident-kind.js"
export * from "./incident-throttle.js"
