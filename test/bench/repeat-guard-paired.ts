/**
 * The repetition guard of this tree against the one of another commit, paired in one process
 * (interleaved rounds, best CPU time of 12 each), on the guarded-step bench's stream (120 000
 * words in 40 000 deltas) and on loop-free English prose (40 000 words in 64-character deltas).
 * Prints CPU ns per token for the whole RepeatGuard, the token-window rule alone (the guard with the long
 * rule off) and the long rule alone, and the ratio this / other.
 *
 *   git archive COMMIT packages/core/src/repeat | tar -x -C /tmp/repeat-before
 *   bun run test/bench/repeat-guard-paired.ts /tmp/repeat-before
 */
import { join, resolve } from "node:path"
import { LongRepeatMonitor } from "../../packages/core/src/repeat/long-repeat-monitor.js"
import { RepeatGuard } from "../../packages/core/src/repeat/repeat-guard.js"
import { tokenize } from "../../packages/core/src/repeat/tokenizer.js"
import { prose } from "./guarded-step.js"
import { proseText } from "./repeat-monitor.js"

interface GuardLike {
  push(delta: string): unknown
}
interface Side {
  readonly guard: (options?: { long?: { enabled: boolean } }) => GuardLike & { flush(): unknown }
  readonly long: () => GuardLike
}

const deltasOf = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

const cpuNs = (run: () => void): number => {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) * 1_000
}

const measure = (name: string, deltas: ReadonlyArray<string>, tokens: number, sides: Record<string, Side>): void => {
  const runs: Record<string, () => void> = {}
  for (const [side, make] of Object.entries(sides)) {
    runs[`${side} guard`] = () => {
      const g = make.guard()
      for (const d of deltas) g.push(d)
      g.flush()
    }
    runs[`${side} short`] = () => {
      const g = make.guard({ long: { enabled: false } })
      for (const d of deltas) g.push(d)
      g.flush()
    }
    runs[`${side} long`] = () => {
      const m = make.long()
      for (const d of deltas) m.push(d)
    }
  }
  const best: Record<string, number> = {}
  for (let round = 0; round < 12; round++) for (const [k, run] of Object.entries(runs)) best[k] = Math.min(best[k] ?? Infinity, cpuNs(run))
  console.log(`${name} (${tokens.toLocaleString("en")} tokens)`)
  for (const part of ["guard", "short", "long"]) {
    const now = best[`this ${part}`]! / tokens
    const then = best[`other ${part}`]! / tokens
    console.log(`  ${part.padEnd(6)} this ${now.toFixed(1)} ns/token, other ${then.toFixed(1)} ns/token, this / other ${(now / then).toFixed(2)}x`)
  }
}

export const main = async (otherDir: string): Promise<void> => {
  const root = join(resolve(otherDir), "packages", "core", "src", "repeat")
  const other = {
    guard: (await import(join(root, "repeat-guard.ts"))).RepeatGuard,
    long: (await import(join(root, "long-repeat-monitor.ts"))).LongRepeatMonitor
  }
  const sides: Record<string, Side> = {
    this: { guard: (o) => new RepeatGuard(o), long: () => new LongRepeatMonitor() },
    other: { guard: (o) => new other.guard(o), long: () => new other.long() }
  }
  const step = prose(120_000)
  measure("guarded-step stream, 40,000 deltas", deltasOf(step, Math.ceil(step.length / 40_000)), 120_000, sides)
  const english = proseText(40_000)
  measure("English prose, 64-character deltas", deltasOf(english, 64), tokenize(english).length, sides)
}

if (import.meta.main) {
  const dir = process.argv[2]
  if (dir === undefined) {
    console.error("usage: bun run test/bench/repeat-guard-paired.ts OTHER_TREE (see the header)")
    process.exit(2)
  }
  await main(dir)
}
