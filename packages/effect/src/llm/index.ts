export * from "./LLM.js"
export * from "./FallbackLLM.js"
export * from "./redact-parts.js"
