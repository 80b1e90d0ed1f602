/**
 * The second evaluation set (test/harness-traces): generated runs in the shape of OpenHands,
 * Gemini CLI, OpenCode, Claude Code and Codex logs, healthy and stuck, audited exactly like the
 * development traces and scored the same way (see trace-eval.ts).
 *
 *   bun run test/bench/harness-eval.ts [--seed N] [--count N] [--harness NAME] [--json] [--by-scenario]
 */
import { generateHarnessTraces } from "../harness-traces/generate.js"
import { evaluate, report } from "./trace-eval.js"

const flag = (args: ReadonlyArray<string>, name: string, fallback: number): number => {
  const i = args.indexOf(name)
  const v = i >= 0 ? Number(args[i + 1]) : Number.NaN
  return Number.isInteger(v) && v > 0 ? v : fallback
}

const main = async () => {
  const args = process.argv.slice(2)
  const seed = flag(args, "--seed", 1)
  const only = args.includes("--harness") ? args[args.indexOf("--harness") + 1] : undefined
  const traces = generateHarnessTraces(seed, flag(args, "--count", 90)).filter((t) => only === undefined || t.harness === only)
  const e = await evaluate(traces)
  if (args.includes("--json")) return console.log(JSON.stringify(e))
  console.log(report(e, `generated, seed ${seed}${only !== undefined ? `, ${only} only` : ""}`))
  if (!args.includes("--by-scenario")) return
  for (const name of [...new Set(traces.map((t) => `${t.harness}/${t.scenario}`))].sort()) {
    const some = traces.filter((t) => `${t.harness}/${t.scenario}` === name)
    const s = await evaluate(some)
    console.log(`${name.padEnd(40)} runs ${some.length}  recall ${s.recall.toFixed(2)}  false/100 ${s.falseAlarmsPer100.toFixed(2)}  stalls ${s.stallWarnings.total}`)
  }
}

if (import.meta.main) await main()
