export * from "./cap-policy.js"
export * from "./pricing.js"
export * from "./usage-meter.js"
export * from "./error-storm-breaker.js"
