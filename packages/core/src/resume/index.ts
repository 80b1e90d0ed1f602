export { interruptedCallText, markInterruptedCalls, type InterruptedCall } from "./interrupted.js"
