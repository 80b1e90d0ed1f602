/**
 * Cost of the long-period rule against the token-window rule on the same loop-free prose (the one
 * repeat-monitor.ts uses): CPU ns per token for each (best of 10 rounds: CPU time is steadier than
 * wall time on a shared machine), fed as deltas of 64 characters (the token-window rule as RepeatGuard runs
 * it, token keys into the monitor; the long rule on the raw characters), and the ratio long / short.
 * Then the whole RepeatGuard (both rules, as the guarded step runs it) on the guarded-step
 * bench's stream: 120 000 words in 40 000 deltas of ~17 characters, in CPU ns per token.
 *
 *   bun run test/bench/long-repeat.ts
 */
import { LongRepeatMonitor } from "../../packages/core/src/repeat/long-repeat-monitor.js"
import { PeriodicRepeatMonitor } from "../../packages/core/src/repeat/periodic-repeat-monitor.js"
import { RepeatGuard } from "../../packages/core/src/repeat/repeat-guard.js"
import { StreamTokenKeys } from "../../packages/core/src/repeat/token-keys.js"
import { tokenize } from "../../packages/core/src/repeat/tokenizer.js"
import { prose } from "./guarded-step.js"
import { proseText } from "./repeat-monitor.js"

export interface LongBenchResult {
  readonly tokens: number
  readonly shortNsPerToken: number
  readonly longNsPerToken: number
  readonly ratio: number
  /** RepeatGuard (both rules) on the guarded-step stream, CPU ns per token. */
  readonly guardNsPerToken: number
}

/** Best-of-`rounds` CPU time (user + system) of `run`, in ns: steadier than wall time on a shared machine. */
const bestCpu = (rounds: number, run: () => void): number => {
  let min = Infinity
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage()
    run()
    const used = process.cpuUsage(before)
    min = Math.min(min, (used.user + used.system) * 1_000)
  }
  return min
}

/** The guarded-step bench's reply, cut as its server cuts it. */
export const guardedStepDeltas = (words = 120_000, chunks = 40_000): Array<string> => {
  const text = prose(words)
  return deltasOf(text, Math.ceil(text.length / chunks))
}

const deltasOf = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

export const runLongBench = (words = 40_000): LongBenchResult => {
  const text = proseText(words)
  const tokens = tokenize(text).length
  const deltas = deltasOf(text, 64)
  // the token-window rule as RepeatGuard runs it: token keys into the monitor.
  const short = () => {
    const keys = new StreamTokenKeys()
    const monitor = new PeriodicRepeatMonitor()
    for (const d of deltas) keys.each(d, (k) => {
      if (monitor.pushKey(k) !== null) throw new Error("prose tripped the token-window rule")
    })
  }
  const long = () => {
    const monitor = new LongRepeatMonitor()
    for (const d of deltas) if (monitor.push(d) !== null) throw new Error("prose tripped the long rule")
  }
  bestCpu(3, short)
  bestCpu(3, long)
  const shortNs = bestCpu(10, short) / tokens
  const longNs = bestCpu(10, long) / tokens
  const stepDeltas = guardedStepDeltas()
  const guard = () => {
    const g = new RepeatGuard()
    for (const d of stepDeltas) if (g.push(d) !== null) throw new Error("the guarded-step stream tripped the guard")
    g.flush()
  }
  const guardNs = bestCpu(10, guard) / 120_000
  return { tokens, shortNsPerToken: shortNs, longNsPerToken: longNs, ratio: longNs / shortNs, guardNsPerToken: guardNs }
}

export const main = (): LongBenchResult => {
  const r = runLongBench()
  console.log(`long-period rule vs the token-window rule, ${r.tokens} prose tokens in 64-character deltas (no loop)`)
  console.log(`  token window (token keys + monitor): ${r.shortNsPerToken.toFixed(1)} ns/token CPU`)
  console.log(`  long-period rule:               ${r.longNsPerToken.toFixed(1)} ns/token CPU`)
  console.log(`  ratio long / short: ${r.ratio.toFixed(2)}x`)
  console.log(`RepeatGuard (both rules) on the guarded-step stream (120,000 words, 40,000 deltas): ${r.guardNsPerToken.toFixed(1)} ns/token CPU`)
  return r
}

if (import.meta.main) main()
