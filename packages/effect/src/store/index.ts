export * from "./SessionStore.js"
export * from "./jsonl-store.js"
