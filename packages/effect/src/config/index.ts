export * from "./ConfigService.js"
export * from "./defaults.js"
export * from "./load.js"
export * from "./schema.js"
