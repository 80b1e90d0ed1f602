/**
 * Per-token cost of the incremental PeriodicRepeatMonitor against the naive rescan of the whole
 * window (what the reference implementation does), at the token-window rule's defaults (window 500), on the same
 * realistic token stream: seeded prose with CJK, which never loops, so neither side trips early.
 *
 *   bun run test/bench/repeat-monitor.ts
 */
import { DEFAULT_REPEAT_OPTIONS } from "../../packages/core/src/repeat/repeat-options.js"
import { PeriodicRepeatMonitor } from "../../packages/core/src/repeat/periodic-repeat-monitor.js"
import { NaiveRescanMonitor } from "../../packages/core/src/repeat/naive-rescan.js"
import { tokenize } from "../../packages/core/src/repeat/tokenizer.js"

const TARGET_SPEEDUP = 50

export interface RepeatBenchResult {
  readonly tokens: number
  readonly incrementalNsPerToken: number
  readonly naiveNsPerToken: number
  readonly speedup: number
  readonly targetMet: boolean
}

const ENGLISH = (
  "the a to of and in is it that for on with as this be are was not file test function error " +
  "value type check run build output result line code change fix update need should would could " +
  "first then next now again still because when where which while before after into from about " +
  "let me i will look at read write open compile import export return const class interface " +
  "module package config option default window token period block stream step loop agent model"
).split(" ")
const CJK = "我们需要检查这个文件里的函数然后修复测试中出现的错误再运行一遍看看结果是否正确"

/** Deterministic prose: Zipf-like word choice, sentences of varied length, some Chinese. */
export const proseText = (words: number, seed = 42): string => {
  let s = seed
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
  const zipf = (n: number) => Math.min(n - 1, Math.floor(n * next() ** 2.2))
  const parts: Array<string> = []
  for (let i = 0; i < words; ) {
    const sentence = 5 + Math.floor(next() * 20)
    if (next() < 0.2) {
      const from = Math.floor(next() * (CJK.length - sentence))
      parts.push(CJK.slice(from, from + Math.min(sentence, 12)) + "。")
    } else {
      const ws = Array.from({ length: sentence }, () => ENGLISH[zipf(ENGLISH.length)]!)
      ws[0] = ws[0]!.charAt(0).toUpperCase() + ws[0]!.slice(1)
      parts.push(ws.join(" ") + (next() < 0.3 ? ",\n" : "."))
    }
    i += sentence
  }
  return parts.join(" ")
}

interface Pushable {
  push(token: string): unknown
}

/** Best-of-`rounds` nanoseconds per token over the whole stream, a fresh monitor each round. */
const measure = (make: () => Pushable, tokens: ReadonlyArray<string>, rounds: number): number => {
  let best = Infinity
  for (let r = 0; r < rounds; r++) {
    const monitor = make()
    const start = Bun.nanoseconds()
    for (let i = 0; i < tokens.length; i++) {
      if (monitor.push(tokens[i]!) !== null) throw new Error(`prose tripped at token ${i}`)
    }
    best = Math.min(best, (Bun.nanoseconds() - start) / tokens.length)
  }
  return best
}

export const runRepeatBench = (tokenCount = 20_000): RepeatBenchResult => {
  const tokens = tokenize(proseText(tokenCount * 2)).slice(0, tokenCount)
  const options = DEFAULT_REPEAT_OPTIONS
  // Warm both up so the JIT has compiled them before the measured rounds.
  measure(() => new PeriodicRepeatMonitor(options), tokens.slice(0, 5_000), 3)
  measure(() => new NaiveRescanMonitor(options), tokens.slice(0, 1_000), 1)
  const incrementalNsPerToken = measure(() => new PeriodicRepeatMonitor(options), tokens, 10)
  const naiveNsPerToken = measure(() => new NaiveRescanMonitor(options), tokens, 2)
  const speedup = naiveNsPerToken / incrementalNsPerToken
  return { tokens: tokens.length, incrementalNsPerToken, naiveNsPerToken, speedup, targetMet: speedup >= TARGET_SPEEDUP }
}

export const main = (): RepeatBenchResult => {
  const result = runRepeatBench()
  console.log(`repeat monitor, window ${DEFAULT_REPEAT_OPTIONS.window}, ${result.tokens} prose tokens (no loop)`)
  console.log(`  incremental PeriodicRepeatMonitor: ${result.incrementalNsPerToken.toFixed(1)} ns/token`)
  console.log(`  naive rescan of the window:        ${result.naiveNsPerToken.toFixed(1)} ns/token`)
  console.log(`  speedup: ${result.speedup.toFixed(1)}x`)
  console.log(`  target >= ${TARGET_SPEEDUP}x: ${result.targetMet ? "met" : "not met"}`)
  return result
}

if (import.meta.main) main()
