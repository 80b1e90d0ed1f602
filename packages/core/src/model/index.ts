// The shared vocabulary every backend and detector speaks: stream parts, messages, exit reasons.
export * from "./stream.js"
export * from "./message.js"
export * from "./exit.js"
export * from "./reply-builder.js"
export * from "./backend-helpers.js"
export * from "./interrupted.js"
