/**
 * `bun run bench [-- --quick]`: every benchmark, each figure a ratio or a size measured in this
 * one run (docs/performance.md lists the targets and the figures of record). `--quick` runs the
 * large cases at a quarter size or leaves them out; the full run takes several minutes on 2 cores.
 */
import { main as repeatMonitor } from "./repeat-monitor.js"
import { main as processorOverhead } from "./processor-overhead.js"
import { main as longRepeat } from "./long-repeat.js"
import { main as runawayShapes } from "./runaway-shapes.js"
import { main as cliStartup } from "./cli-startup.js"
import { main as agentEntry } from "./agent-entry.js"
import { main as guardedStep } from "./guarded-step.js"
import { main as runVsBare } from "./run-vs-bare.js"
import { main as sessionScale } from "./session-scale.js"
import { main as auditScanScale } from "./audit-scan-scale.js"
import { main as storeWrites } from "./store-writes.js"
import { main as manyCalls } from "./many-calls.js"
import { main as proxyOverhead } from "./proxy-overhead.js"
import { main as proxyRecording } from "./proxy-recording.js"
import { main as repeatGuardMade } from "./repeat-guard-made.js"
import { main as auditPage } from "./audit-page.js"
import { main as hostileInputs } from "./hostile-inputs.js"
import { quick } from "./lib/measure.js"

const isQuick = quick()
const started = performance.now()
for (const [name, bench] of [
  ["repeat monitor", () => repeatMonitor()],
  ["long-period repeat", async () => longRepeat()],
  ["runaway shapes", async () => runawayShapes(isQuick ? 50 : 200)],
  ["processor overhead", () => processorOverhead(isQuick ? 3 : 5)],
  ["CLI start-up", () => cliStartup(isQuick ? 7 : 15)],
  ["AI SDK agent entry import", () => agentEntry(isQuick ? 7 : 15)],
  ["guarded step", () => guardedStep(isQuick)],
  ["run vs bare", () => runVsBare(isQuick)],
  ["session scale", () => sessionScale(isQuick)],
  // SQLite writes a transaction per write (synchronous = FULL): 2 000 steps keep this under a minute.
  ["session scale (SQLite)", () => sessionScale(isQuick, "sqlite", isQuick ? 1_000 : 2_000)],
  ["audit and scan", () => auditScanScale(isQuick)],
  ["store writes", () => storeWrites()],
  ["many tool calls in one reply", () => manyCalls(isQuick ? 250 : 1_000)],
  ["repetition guard made per stream", () => repeatGuardMade()],
  ["proxy overhead", () => proxyOverhead(isQuick)],
  ["proxy session recording", () => proxyRecording(isQuick ? 100 : 300)],
  ["audit page", () => auditPage(isQuick ? 2_500 : 10_000)],
  ["hostile inputs", () => hostileInputs()]
] as const) {
  const t0 = performance.now()
  await bench()
  console.log(`(${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
}
console.log(`bench${isQuick ? " --quick" : ""}: ${((performance.now() - started) / 1000).toFixed(0)} s in all`)
