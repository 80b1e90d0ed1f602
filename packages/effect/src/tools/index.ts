export * from "./Tools.js"
export * from "./shell.js"
