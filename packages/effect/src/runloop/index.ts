export * from "./RunLoop.js"
export * from "./run-types.js"
export * from "./report.js"
