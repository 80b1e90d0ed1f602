/**
 * What making a repetition guard costs, as `loopguard proxy` makes one per streamed reply: CPU to
 * make one (200 alive at once, best of 7 rounds), the bytes of its typed arrays, and this
 * process's resident memory per guard (200 alive, after a full GC) made fresh, after 1 KB and after
 * 100 KB of loop-free prose in 64-character deltas. With another tree's path, the same for its guard,
 * side by side (make the tree as repeat-guard-paired.ts's header says):
 *
 *   bun run test/bench/repeat-guard-made.ts [OTHER_TREE]
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { RepeatGuard } from "../../packages/core/src/repeat/repeat-guard.js"
import { proseText } from "./repeat-monitor.js"

interface GuardLike {
  push(delta: string): unknown
}

const GUARDS = 200

const rssBytes = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN) * 1024

/** Bytes of every typed array reachable from `value`, each once. */
const bufferBytes = (value: unknown, seen = new Set<unknown>()): number => {
  if (value === null || typeof value !== "object" || seen.has(value)) return 0
  seen.add(value)
  if (ArrayBuffer.isView(value)) return value.byteLength
  return Object.values(value).reduce((sum: number, v) => sum + bufferBytes(v, seen), 0)
}

/** CPU µs per guard made, GUARDS of them kept alive (as open streams keep them), best of 7 rounds. */
const madeUs = (make: () => GuardLike): number => {
  let best = Infinity
  for (let round = 0; round < 7; round++) {
    const kept: Array<GuardLike> = []
    const before = process.cpuUsage()
    for (let i = 0; i < GUARDS; i++) kept.push(make())
    const used = process.cpuUsage(before)
    best = Math.min(best, (used.user + used.system) / GUARDS)
  }
  return best
}

/** Resident KB per guard: GUARDS guards alive, each fed `deltas`. */
const residentKb = (make: () => GuardLike, deltas: ReadonlyArray<string>): number => {
  Bun.gc(true)
  const before = rssBytes()
  const kept = Array.from({ length: GUARDS }, () => {
    const guard = make()
    for (const d of deltas) guard.push(d)
    return guard
  })
  Bun.gc(true)
  const perGuard = (rssBytes() - before) / kept.length / 1024
  return perGuard
}

const deltasOf = (text: string, chars: number): Array<string> => {
  const out: Array<string> = []
  for (let at = 0; at < chars; at += 64) out.push(text.slice(at, Math.min(chars, at + 64)))
  return out
}

type Measure = "made" | "fresh" | "1kb" | "100kb"
const MEASURES: ReadonlyArray<Measure> = ["made", "fresh", "1kb", "100kb"]

/** One figure, in this process (each runs in a process of its own, so one cannot reuse another's freed memory). */
const measureHere = async (measure: Measure, otherDir: string | undefined): Promise<number> => {
  const make = await makerOf(otherDir)
  const text = proseText(30_000)
  make()
  if (measure === "made") return madeUs(make)
  return residentKb(make, deltasOf(text, measure === "fresh" ? 40 : measure === "1kb" ? 1_024 : 100 * 1_024))
}

const makerOf = async (otherDir: string | undefined): Promise<() => GuardLike> => {
  if (otherDir === undefined) return () => new RepeatGuard()
  const Other = (await import(join(resolve(otherDir), "packages", "core", "src", "repeat", "repeat-guard.ts"))).RepeatGuard as new () => GuardLike
  return () => new Other()
}

const inChild = (measure: Measure, otherDir: string | undefined): number => {
  const args = [import.meta.path, "--measure", measure, ...(otherDir === undefined ? [] : [otherDir])]
  const run = Bun.spawnSync([process.execPath, ...args], { stderr: "inherit" })
  if (run.exitCode !== 0) throw new Error(`repeat-guard-made --measure ${measure} failed (exit ${run.exitCode})`)
  return Number(run.stdout.toString().trim())
}

const report = async (side: string, otherDir: string | undefined): Promise<void> => {
  const [made, fresh, kb1, kb100] = MEASURES.map((m) => inChild(m, otherDir))
  const bytes = bufferBytes((await makerOf(otherDir))())
  console.log(
    `  ${side.padEnd(5)} made in ${made!.toFixed(1)} µs of CPU; buffers ${(bytes / 1024).toFixed(1)} KB when made; resident per guard ${fresh!.toFixed(0)} KB fresh, ${kb1!.toFixed(0)} KB after 1 KB, ${kb100!.toFixed(0)} KB after 100 KB`
  )
}

export const main = async (otherDir?: string): Promise<void> => {
  console.log(`repetition guard made per stream (${GUARDS} alive at once; each figure in a process of its own)`)
  await report("this", undefined)
  if (otherDir !== undefined) await report("other", otherDir)
}

if (import.meta.main) {
  if (process.argv[2] === "--measure") console.log(await measureHere(process.argv[3] as Measure, process.argv[4]))
  else await main(process.argv[2])
}
