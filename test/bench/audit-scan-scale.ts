/**
 * `loopguard audit` and `loopguard scan` from the CLI bundle (Node) on generated inputs of growing
 * size: wall time, throughput and peak RSS of the process.
 *   audit: traces of 1k, 10k and 100k steps (~2 KB a step, so 100k steps is ~200 MB);
 *   scan: 10 MB and 100 MB of loop-free prose on stdin, plain and --jsonl (one JSON string a line).
 *   --issue-trace: only the issue's case, one ~200 MB trace of ~76k steps (~2.6 KB a step).
 *
 *   bun run test/bench/audit-scan-scale.ts [--quick] [--only=audit|scan] [--issue-trace]
 *   (quick: 1k and 10k steps, 10 MB; full: ~3 min on a quiet 2-core machine)
 */
import { mkdtempSync, rmSync, statSync, writeSync, openSync, closeSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { prose } from "./guarded-step.js"
import { buildCliBundle, cliBundle, mb, quick, timedChild, verdict } from "./lib/measure.js"

export const AUDIT_TARGET = { bytes: 200 * 1024 * 1024, seconds: 60, rss: 500 * 1024 * 1024 }
export const SCAN_TARGET = { bytes: 100 * 1024 * 1024, rss: 300 * 1024 * 1024 }

const OUTPUT = prose(300)

/** A trace of `steps` steps: a shell call, an edit every fifth step, varied enough that detectors stay mostly quiet; shell outputs of up to `outputChars`. */
export const writeTrace = (file: string, steps: number, outputChars = 2000): number => {
  const fd = openSync(file, "w")
  try {
    let buf = `${JSON.stringify({ type: "session", id: "bench", model: "openai/gpt-4o", agent: "main" })}\n${JSON.stringify({ type: "user", text: "Fix the failing tests" })}\n`
    for (let i = 0; i < steps; i++) {
      const edit = i % 5 === 4
      const call = edit
        ? { id: `c${i}`, name: "edit", input: { path: `src/f${i % 97}.ts`, old: `a${i}`, new: `b${i}` } }
        : { id: `c${i}`, name: "bash", input: { command: `grep -rn item${i} src/ | head -${(i % 40) + 1}` } }
      buf += `${JSON.stringify({ type: "assistant", reasoning: `Step ${i}: the next thing to look at is item ${i * 7919}.`, text: `Looking at item ${i}.`, toolCalls: [call], finish: "tool-calls", usage: { inputTokens: 1000 + i, outputTokens: 40 } })}\n`
      const result = edit
        ? { type: "tool-result", id: call.id, name: "edit", output: "ok", path: call.input.path, diff: `--- a/${call.input.path}\n+++ b/${call.input.path}\n@@ -1 +1 @@\n-const a${i} = ${i}\n+const b${i} = ${i + 1}` }
        : { type: "tool-result", id: call.id, name: "bash", output: `${i}: ${OUTPUT.slice((i * 13) % 400)} ${OUTPUT} ${OUTPUT}`.slice(0, outputChars), exitCode: 0 }
      buf += `${JSON.stringify(result)}\n`
      if (buf.length > 1 << 20) (writeSync(fd, buf), (buf = ""))
    }
    buf += `${JSON.stringify({ type: "assistant", text: "All tests pass now.", finish: "stop" })}\n`
    writeSync(fd, buf)
  } finally {
    closeSync(fd)
  }
  return statSync(file).size
}

/** About `bytes` of loop-free prose, one long paragraph per 4 KB line (each a JSON string with `jsonl`). */
export const writeProse = (file: string, bytes: number, jsonl = false): number => {
  const fd = openSync(file, "w")
  const words = prose(200_000).split(" ")
  try {
    let written = 0
    let i = 0
    while (written < bytes) {
      let line = ""
      while (line.length < 4096) line += `${words[i++ % words.length]} `
      written += writeSync(fd, `${jsonl ? JSON.stringify(line) : line}\n`)
    }
  } finally {
    closeSync(fd)
  }
  return statSync(file).size
}

const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length)
const issueTrace = process.argv.includes("--issue-trace")

const load = (): string => loadavg().map((x) => x.toFixed(1)).join(" ")

/** One `audit --json` run on a generated trace: its row, checked against the step count. */
const auditRow = async (work: string, steps: number, outputChars?: number): Promise<void> => {
  const file = join(work, `trace-${steps}.jsonl`)
  const bytes = writeTrace(file, steps, outputChars)
  const r = await timedChild("node", [cliBundle, "audit", "--json", file], { okStatus: [1] })
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { steps?: number; error?: string }
  if (out.steps !== steps + 1) throw new Error(`audit of ${file} said ${r.stdout.slice(0, 300)}`)
  const bigEnough = bytes >= AUDIT_TARGET.bytes * 0.9
  const targets = bigEnough ? ` (target < ${AUDIT_TARGET.seconds} s: ${verdict(r.ms / 1000, AUDIT_TARGET.seconds)}; < ${mb(AUDIT_TARGET.rss)}: ${verdict(r.peakRss, AUDIT_TARGET.rss)})` : ""
  console.log(`  ${String(steps).padStart(7)} steps, ${mb(bytes).padStart(6)}: ${(r.ms / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s), ${Math.round(steps / (r.ms / 1000)).toLocaleString()} steps/s, peak RSS ${mb(r.peakRss)}${targets}  [load ${load()}]`)
  rmSync(file)
}

/** One `scan` run (plain or --jsonl) on generated prose: its row. */
const scanRow = async (work: string, size: number, jsonl: boolean): Promise<void> => {
  const file = join(work, `prose-${size}${jsonl ? ".jsonl" : ".txt"}`)
  const bytes = writeProse(file, size * 1024 * 1024, jsonl)
  const r = await timedChild("node", [cliBundle, "scan", ...(jsonl ? ["--jsonl"] : [])], { stdinFile: file })
  const ok = jsonl ? r.stdout.split("\n").filter((l) => l !== "").every((l) => l.startsWith(`{"repeat":false`)) : r.stdout.includes("repeat: no")
  if (!ok) throw new Error(`scan said ${r.stdout.slice(0, 300)}`)
  const targets = bytes >= SCAN_TARGET.bytes * 0.9 ? ` (target < ${mb(SCAN_TARGET.rss)}: ${verdict(r.peakRss, SCAN_TARGET.rss)})` : ""
  console.log(`  ${(jsonl ? "--jsonl" : "plain").padEnd(7)} ${mb(bytes).padStart(6)}: ${(r.ms / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s), ${(bytes / 1024 / 1024 / (r.ms / 1000)).toFixed(1)} MB/s, peak RSS ${mb(r.peakRss)}${targets}  [load ${load()}]`)
  rmSync(file)
}

export const main = async (isQuick = quick()) => {
  buildCliBundle()
  const started = performance.now()
  const work = mkdtempSync(join(tmpdir(), "loopguard-bench-audit-"))
  try {
    if (issueTrace) {
      console.log("loopguard audit --json (bundle, node) on the issue's case: ~200 MB, ~76k steps")
      await auditRow(work, 76_000, 2_950)
      return
    }
    if (only !== "scan") console.log("loopguard audit --json (bundle, node) on generated traces")
    for (const steps of only === "scan" ? [] : isQuick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) await auditRow(work, steps)
    if (only !== "audit") console.log("loopguard scan (bundle, node) on prose from stdin")
    for (const size of only === "audit" ? [] : isQuick ? [10] : [10, 100]) {
      await scanRow(work, size, false)
      await scanRow(work, size, true)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
    console.log(`  (audit and scan bench: ${((performance.now() - started) / 1000).toFixed(0)} s)`)
  }
}

if (import.meta.main) await main()
