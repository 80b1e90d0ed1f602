export * from "./LLM.js"
export * from "./redact-parts.js"
