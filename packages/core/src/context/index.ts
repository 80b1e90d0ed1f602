export * from "./compaction.js"
export * from "./context-sizes.js"
export * from "./estimate.js"
