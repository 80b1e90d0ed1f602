export * from "./Config.js"
export * from "./defaults.js"
export * from "./load.js"
export * from "./schema.js"
