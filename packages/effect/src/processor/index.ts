export * from "./SessionProcessor.js"
export * from "./ToolGate.js"
export * from "./monitors.js"
export * from "./give-up.js"
