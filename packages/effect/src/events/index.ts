export * from "./Events.js"
