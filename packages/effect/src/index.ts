export * from "./config/index.js"
export * from "./events/Events.js"
export * from "./llm/index.js"
