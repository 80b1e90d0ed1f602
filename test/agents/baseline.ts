/**
 * The baseline figure: how often each real agent runs the same shell call when the scripted model
 * asks for it every step, within a bounded time, direct and through `loopguard proxy`.
 *
 *   bun run test/agents/baseline.ts [seconds=60] [direct|proxy|both=both] [agent...]
 *
 * The agent is killed by its process group at the deadline. Prints one line per agent and mode.
 */
import { AGENTS } from "./agents.js"
import { repeatedShellScript } from "./agent-scripts.js"
import { installFromNpm, installKey } from "./install.js"
import { killAllGroups } from "./processes.js"
import { cleanCase, markerLines, runCase } from "./run-case.js"

const [secondsArg, modeArg, ...names] = process.argv.slice(2)
const seconds = Number(secondsArg ?? "60")
const modes = modeArg === "direct" ? [false] : modeArg === "proxy" ? [true] : [false, true]
const agents = names.length > 0 ? AGENTS.filter((a) => names.includes(a.name)) : AGENTS

try {
  for (const agent of agents) {
    const installed = await installFromNpm(installKey(agent), agent.packages)
    if (!installed.ok) {
      console.log(`${agent.name}: not installed: ${installed.reason}`)
      continue
    }
    for (const viaProxy of modes) {
      const result = await runCase({
        agent,
        installDir: installed.dir,
        script: repeatedShellScript,
        prompt: "Append x to marker.txt.",
        viaProxy,
        deadlineMs: seconds * 1000
      })
      const o = result.outcome
      console.log(
        `${agent.name} ${viaProxy ? "proxy " : "direct"}: ${markerLines(result.marker)} executions, ` +
          `${result.requests.length} upstream requests, ${o.killed ? `killed at the ${seconds} s deadline` : `exited ${o.exitCode} by itself`} after ${(o.elapsedMs / 1000).toFixed(1)} s`
      )
      cleanCase(result)
    }
  }
} finally {
  killAllGroups()
}
