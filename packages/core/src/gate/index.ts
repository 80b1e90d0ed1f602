// The goal gate's prompt and verdict parsing, and the feedback both finish gates send back.
export * from "./goal-gate.js"
