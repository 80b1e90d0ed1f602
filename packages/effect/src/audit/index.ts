export * from "./audit-config.js"
export * from "./audit-trace.js"
export * from "./audit-file.js"
export * from "./incidents.js"
