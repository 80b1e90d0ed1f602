export * from "./exit-outcomes.js"
export * from "./run-report.js"
export * from "./work-summary.js"
