// In-stream repetition (docs/repetition.md). `naive-rescan.ts` is a test/bench reference and is not exported.
export * from "./repeat-options.js"
export * from "./tokenizer.js"
export * from "./periodic-repeat-monitor.js"
export * from "./long-repeat-options.js"
export * from "./long-repeat-monitor.js"
export * from "./repeat-guard.js"
export * from "./scan.js"
export * from "./guard-defaults.js"
