export * from "./Compactor.js"
