/**
 * How the audit's detectors line up with the rule labels of the development traces
 * (../shared/traces/labels.json). Every trace is replayed through the real RunLoop in shadow
 * mode, exactly as `loopguard audit` does; then, per detector:
 *   found       episodes with an alarm of the detector at a step in [start_step, end_step]
 *   false       alarm steps (distinct per file) outside every episode of the file
 *   latency     mean over found episodes of (first alarm in the episode − onset_step)
 * and per detector and action (note, remind, stop, pause, rollback …): recall on the labelled
 * episodes, false alarms per 100 clean steps, and every pause, stop or rollback outside an episode
 * (a false one: it would fail or rewrite a healthy run). The labels are mechanical rules, a strong
 * hint and not gold (README there).
 *
 * Three sets: the development traces (TRACE_DIR, default ../shared/traces beside the repository),
 * and the seeded precision set (test/harness-traces/generate.ts `generatePrecisionSet`): healthy
 * runs and looping runs of every loop kind in SWE-agent, OpenHands, Codex CLI, Claude Code and
 * mini-SWE-agent styles. The bar on each: recall ≥ 0.9 at ≤ 0.1 false alarms per 100 clean steps
 * and no false pause or stop.
 *
 *   bun run test/bench/trace-eval.ts [TRACE_DIR] [--seed N] [--per-shape N] [--json]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { Effect } from "effect"
import { auditTrace, type AuditIncident } from "@loopguard/effect/audit"
import { LOOP_DETECTOR_NAMES } from "@loopguard/core/report"
import { generatePrecisionSet } from "../harness-traces/generate.js"

export interface Episode {
  readonly start_step: number
  readonly onset_step: number
  readonly fires_at: number
  readonly end_step: number
  readonly kinds: ReadonlyArray<string>
}
interface FileLabel {
  readonly n_steps: number
  readonly stuck: boolean
  readonly episodes: ReadonlyArray<Episode>
}

export interface DetectorRow {
  readonly detector: string
  readonly found: number
  readonly episodes: number
  readonly falseAlarms: number
  readonly alarms: number
  /** Null when no episode was found. */
  readonly meanLatency: number | null
}

/** The loop detectors (incidents of kind `loop`), as opposed to stalls, recoveries and faults. */
export const LOOP_DETECTORS: ReadonlySet<string> = new Set(LOOP_DETECTOR_NAMES)
const ANY = "any loop detector"
const ANY_STALL = "any stall warning"
const ANY_FAULT = "any fault (breaker …)"

interface FileAlarms {
  readonly file: string
  readonly steps: number
  readonly episodes: ReadonlyArray<Episode>
  /** detector → distinct alarm steps, ascending; also `detector/action` → its steps. */
  readonly alarms: ReadonlyMap<string, ReadonlyArray<number>>
  readonly incidents: ReadonlyArray<AuditIncident>
}

/** Actions that end or pause a run: one outside every episode fails a healthy unattended run. */
export const HALTING_ACTIONS: ReadonlySet<string> = new Set(["stop", "pause", "terminate", "hand-back", "end-loop"])

/** A pause, stop or popped reply outside every labelled episode. */
export interface FalseHalt {
  readonly file: string
  readonly step: number
  readonly detector: string
  readonly action: string
}

const alarmsOf = (incidents: ReadonlyArray<AuditIncident>): Map<string, Array<number>> => {
  const m = new Map<string, Set<number>>()
  const add = (d: string, step: number) => {
    if (!m.has(d)) m.set(d, new Set())
    m.get(d)!.add(step)
  }
  for (const i of incidents) {
    add(i.detector, i.step)
    add(`${i.detector}/${i.action}`, i.step)
    if (i.kind === "loop") add(ANY, i.step)
    if (i.kind === "stall") add(ANY_STALL, i.step)
    if (i.kind === "fault") add(ANY_FAULT, i.step)
  }
  return new Map([...m].map(([d, s]) => [d, [...s].sort((a, b) => a - b)]))
}

export const score = (files: ReadonlyArray<FileAlarms>): Array<DetectorRow> => {
  const detectors = new Set<string>([...LOOP_DETECTORS, ANY])
  for (const f of files) for (const d of f.alarms.keys()) detectors.add(d)
  const totalEpisodes = files.reduce((n, f) => n + f.episodes.length, 0)
  return [...detectors].map((detector) => {
    let found = 0
    let falseAlarms = 0
    let alarms = 0
    let latencySum = 0
    for (const f of files) {
      const steps = f.alarms.get(detector) ?? []
      alarms += steps.length
      falseAlarms += steps.filter((s) => !f.episodes.some((e) => s >= e.start_step && s <= e.end_step)).length
      for (const e of f.episodes) {
        const first = steps.find((s) => s >= e.start_step && s <= e.end_step)
        if (first === undefined) continue
        found += 1
        latencySum += first - e.onset_step
      }
    }
    return { detector, found, episodes: totalEpisodes, falseAlarms, alarms, meanLatency: found === 0 ? null : latencySum / found }
  })
}

const inEpisode = (f: FileAlarms, step: number) => f.episodes.some((e) => step >= e.start_step && step <= e.end_step)

/** Pauses, stops and popped replies outside every episode. */
export const falseHalts = (files: ReadonlyArray<FileAlarms>): Array<FalseHalt> =>
  files.flatMap((f) =>
    f.incidents
      .filter((i) => (HALTING_ACTIONS.has(i.action) || (i.detector === "rollback" && i.action === "rollback")) && !inEpisode(f, i.step))
      .map((i) => ({ file: f.file, step: i.step, detector: i.detector, action: i.action }))
  )

/** Steps outside every labelled episode: where an alarm is a false one. */
export const cleanSteps = (files: ReadonlyArray<FileAlarms>): number =>
  files.reduce((n, f) => {
    let inside = 0
    for (let s = 0; s < f.steps; s++) if (f.episodes.some((e) => s >= e.start_step && s <= e.end_step)) inside++
    return n + f.steps - inside
  }, 0)

export const markdownTable = (rows: ReadonlyArray<DetectorRow>): string => {
  const order = (r: DetectorRow) => (r.detector === ANY ? 0 : LOOP_DETECTORS.has(r.detector) ? 1 : r.detector.startsWith("any ") ? 2 : 3)
  rows = rows.filter((r) => !r.detector.includes("/"))
  const sorted = [...rows].sort((a, b) => order(a) - order(b) || b.found - a.found || a.detector.localeCompare(b.detector))
  const lines = [
    "| detector | episodes found | false alarms (steps) | alarm steps | mean latency (steps after onset) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...sorted.map(
      (r) =>
        `| ${r.detector} | ${r.found}/${r.episodes} | ${r.falseAlarms} | ${r.alarms} | ${r.meanLatency === null ? "–" : r.meanLatency.toFixed(1)} |`
    )
  ]
  return lines.join("\n")
}

/**
 * Per detector and action: recall on the labelled episodes, false alarms per 100 clean steps,
 * and how many of them pause, stop or pop a reply.
 */
export const actionTable = (e: Evaluation): string => {
  const rows = e.rows.filter((r) => r.detector.includes("/") && r.alarms > 0).sort((a, b) => a.detector.localeCompare(b.detector))
  const halts = (d: string) => e.falseHalts.filter((h) => `${h.detector}/${h.action}` === d).length
  return [
    "| detector/action | recall | false alarms /100 clean steps | false pauses, stops, pops |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.detector} | ${(r.found / Math.max(1, r.episodes)).toFixed(2)} | ${((100 * r.falseAlarms) / Math.max(1, e.cleanSteps)).toFixed(2)} | ${halts(r.detector)} |`)
  ].join("\n")
}

/** One labelled trace to audit: its text and its episodes. */
export interface LabelledTrace {
  readonly file: string
  readonly text: string
  readonly episodes: ReadonlyArray<Episode>
}

export interface Evaluation {
  readonly files: number
  readonly steps: number
  readonly cleanSteps: number
  readonly rows: ReadonlyArray<DetectorRow>
  /** Loop detectors together: share of episodes found, false alarms per 100 clean steps. */
  readonly recall: number
  readonly falseAlarmsPer100: number
  /** Stall warnings per audited run (kind "stall"), as [min, mean, max], and their sum. */
  readonly stallWarnings: { readonly total: number; readonly perRun: readonly [number, number, number] }
  /** Pauses, stops and popped replies outside every episode (any detector). */
  readonly falseHalts: ReadonlyArray<FalseHalt>
}

/** Audits every trace through the real RunLoop (shadow mode) and scores it against its labels. */
export const evaluate = async (traces: ReadonlyArray<LabelledTrace>): Promise<Evaluation> => {
  const files: Array<FileAlarms> = []
  const stalls: Array<number> = []
  let steps = 0
  for (const t of traces) {
    const r = await Effect.runPromise(auditTrace(t.file, t.text))
    if (r._tag === "failed") throw new Error(`audit failed: ${r.errors.join("; ")}`)
    steps += r.steps
    stalls.push(r.incidents.filter((i) => i.kind === "stall").length)
    files.push({ file: t.file, steps: r.steps, episodes: t.episodes, alarms: alarmsOf(r.incidents), incidents: r.incidents })
  }
  const rows = score(files)
  const clean = cleanSteps(files)
  const any = rows.find((r) => r.detector === ANY)!
  const total = stalls.reduce((a, b) => a + b, 0)
  return {
    files: files.length,
    steps,
    cleanSteps: clean,
    rows,
    recall: any.found / Math.max(1, any.episodes),
    falseAlarmsPer100: (100 * any.falseAlarms) / Math.max(1, clean),
    stallWarnings: { total, perRun: [Math.min(...stalls), total / Math.max(1, stalls.length), Math.max(...stalls)] },
    falseHalts: falseHalts(files)
  }
}

/** The printed report of an evaluation. */
export const report = (e: Evaluation, what: string): string => {
  const episodes = e.rows.find((r) => r.detector === ANY)!.episodes
  const [min, mean, max] = e.stallWarnings.perRun
  return [
    `${e.files} traces, ${e.steps} steps (${e.cleanSteps} clean: outside every episode), ${episodes} labelled episodes (${what})\n`,
    markdownTable(e.rows),
    `\nloop detectors (kind "loop"): recall ${e.recall.toFixed(2)}, ${e.falseAlarmsPer100.toFixed(2)} false alarms per 100 clean steps`,
    `stall warnings: ${e.stallWarnings.total} on ${e.files} runs (per run min ${min}, mean ${mean.toFixed(2)}, max ${max})`,
    `false pauses, stops and popped replies: ${e.falseHalts.length}${e.falseHalts.length === 0 ? "" : ` (${e.falseHalts.slice(0, 12).map((h) => `${h.file}@${h.step} ${h.detector}/${h.action}`).join("; ")}${e.falseHalts.length > 12 ? "; …" : ""})`}\n`,
    actionTable(e)
  ].join("\n")
}

const flag = (args: ReadonlyArray<string>, name: string, fallback: number): number => {
  const i = args.indexOf(name)
  const v = i >= 0 ? Number(args[i + 1]) : Number.NaN
  return Number.isInteger(v) && v > 0 ? v : fallback
}

/** The development traces of `dir` with their labels, or null when the folder has none. */
const developmentTraces = (dir: string): Array<LabelledTrace> | null => {
  if (!existsSync(join(dir, "labels.json"))) return null
  const labels = JSON.parse(readFileSync(join(dir, "labels.json"), "utf8")) as { files: Record<string, FileLabel> }
  const traces: Array<LabelledTrace> = []
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
    const label = labels.files[name]
    if (label === undefined) {
      console.warn(`no label for ${name}: left out`)
      continue
    }
    traces.push({ file: name, text: readFileSync(join(dir, name), "utf8"), episodes: label.episodes })
  }
  return traces
}

/** Whether a set meets the bar: recall ≥ 0.9 (when it has episodes) at ≤ 0.1 false alarms per 100 clean steps, no false halt. */
export const meetsBar = (e: Evaluation): boolean => {
  const episodes = e.rows.find((r) => r.detector === ANY)?.episodes ?? 0
  return (episodes === 0 || e.recall >= 0.9) && e.falseAlarmsPer100 <= 0.1 && e.falseHalts.length === 0
}

const main = async () => {
  const args = process.argv.slice(2)
  const valued = new Set(["--seed", "--per-shape"])
  const dir = args.find((a, i) => !a.startsWith("--") && !valued.has(args[i - 1] ?? "")) ?? `${import.meta.dir}/../../../shared/traces`
  const seed = flag(args, "--seed", 1)
  const generated = generatePrecisionSet(seed, flag(args, "--per-shape", 2))
  const dev = developmentTraces(dir)
  if (dev === null) console.warn(`\n⚠️  no development traces at ${dir} (labels.json missing): that set is left out\n`)
  const sets: Array<readonly [string, ReadonlyArray<LabelledTrace>]> = [
    ...(dev === null ? [] : [[`development traces, ${basename(dir)}/labels.json`, dev] as const]),
    [`generated healthy runs, seed ${seed}`, generated.healthy],
    [`generated looping runs, seed ${seed}`, generated.looping],
    [`generated, healthy and looping together, seed ${seed}`, [...generated.healthy, ...generated.looping]]
  ]
  const results: Array<{ readonly set: string; readonly evaluation: Evaluation; readonly meetsBar: boolean }> = []
  for (const [set, traces] of sets) {
    const evaluation = await evaluate(traces)
    results.push({ set, evaluation, meetsBar: meetsBar(evaluation) })
  }
  if (args.includes("--json")) return console.log(JSON.stringify(results))
  for (const r of results) console.log(`## ${r.set}\n\n${report(r.evaluation, r.set)}\n\nbar (recall ≥ 0.9, ≤ 0.1 false alarms /100 clean steps, 0 false pauses/stops): ${r.meetsBar ? "met" : "NOT met"}\n`)
}

if (import.meta.main) await main()
