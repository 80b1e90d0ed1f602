export * from "./LLM.js"
export * from "./FallbackLLM.js"
