export * from "./compaction.js"
export * from "./context-sizes.js"
export * from "./estimate.js"
export * from "./shrink-outputs.js"
