export * from "./SessionStore.js"
export * from "./jsonl-store.js"
export * from "./redacting-store.js"
