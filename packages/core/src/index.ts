export * from "./model/stream.js"
export * from "./model/message.js"
export * from "./model/exit.js"
