/**
 * Cost of the long-period rule against SPEC §1's rule on the same loop-free prose (the one
 * repeat-monitor.ts uses): ns per token for each, fed as deltas of 64 characters (SPEC's rule
 * through its tokenizer, the long rule on the raw characters), and the ratio long / short.
 *
 *   bun run test/bench/long-repeat.ts
 */
import { LongRepeatMonitor } from "../../packages/core/src/repeat/long-repeat-monitor.js"
import { PeriodicRepeatMonitor } from "../../packages/core/src/repeat/periodic-repeat-monitor.js"
import { StreamTokenizer, tokenize } from "../../packages/core/src/repeat/tokenizer.js"
import { proseText } from "./repeat-monitor.js"

export interface LongBenchResult {
  readonly tokens: number
  readonly shortNsPerToken: number
  readonly longNsPerToken: number
  readonly ratio: number
}

const deltasOf = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

const best = (rounds: number, run: () => void): number => {
  let min = Infinity
  for (let r = 0; r < rounds; r++) {
    const start = Bun.nanoseconds()
    run()
    min = Math.min(min, Bun.nanoseconds() - start)
  }
  return min
}

export const runLongBench = (words = 40_000): LongBenchResult => {
  const text = proseText(words)
  const tokens = tokenize(text).length
  const deltas = deltasOf(text, 64)
  const short = () => {
    const tokenizer = new StreamTokenizer()
    const monitor = new PeriodicRepeatMonitor()
    for (const d of deltas) tokenizer.each(d, (t) => {
      if (monitor.push(t) !== null) throw new Error("prose tripped SPEC's rule")
    })
  }
  const long = () => {
    const monitor = new LongRepeatMonitor()
    for (const d of deltas) if (monitor.push(d) !== null) throw new Error("prose tripped the long rule")
  }
  best(3, short)
  best(3, long)
  const shortNs = best(10, short) / tokens
  const longNs = best(10, long) / tokens
  return { tokens, shortNsPerToken: shortNs, longNsPerToken: longNs, ratio: longNs / shortNs }
}

export const main = (): LongBenchResult => {
  const r = runLongBench()
  console.log(`long-period rule vs SPEC §1's rule, ${r.tokens} prose tokens in 64-character deltas (no loop)`)
  console.log(`  SPEC §1 (tokenizer + monitor): ${r.shortNsPerToken.toFixed(1)} ns/token`)
  console.log(`  long-period rule:              ${r.longNsPerToken.toFixed(1)} ns/token`)
  console.log(`  ratio long / short: ${r.ratio.toFixed(2)}x`)
  return r
}

if (import.meta.main) main()
