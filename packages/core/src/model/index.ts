// The shared vocabulary every backend and detector speaks: stream parts, messages, exit reasons,
// and the observer that folds a stream's parts into a reply.
export * from "./stream.js"
export * from "./message.js"
export * from "./exit.js"
export * from "./reply-builder.js"
export * from "./backend-helpers.js"
export * from "./interrupted.js"
export * from "./part-observer.js"
export { callInputKey } from "./call-key.js"
