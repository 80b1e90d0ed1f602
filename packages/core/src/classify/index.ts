export * from "./markup.js"
export * from "./classify-step.js"
export * from "./reminders.js"
export * from "./recovery-policy.js"
