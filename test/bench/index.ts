/** `bun run bench`: every benchmark, figures printed as ratios measured in this one run. */
import { main as repeatMonitor } from "./repeat-monitor.js"
import { main as processorOverhead } from "./processor-overhead.js"
import { main as longRepeat } from "./long-repeat.js"
import { main as cliStartup } from "./cli-startup.js"

await repeatMonitor()
console.log("")
longRepeat()
console.log("")
await processorOverhead()
console.log("")
await cliStartup()
