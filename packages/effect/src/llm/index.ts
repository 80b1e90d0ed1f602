export * from "./LLM.js"
